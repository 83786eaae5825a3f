// A subscription delivered as Server-Sent Events: `ready`, `reset`, `create`, `update`,
// `delete` and `close` events, each change with its position as the event id, and
// id-only frames that keep a quiet client's Last-Event-ID current. Frames go through a
// bounded outbox: a client that does not read is closed with SLOW_CONSUMER. A change's
// frame is encoded once for every subscriber, and what waits is written in one piece.
import type { CloseReason, FeedMessage, FeedSink } from './feed-sink.ts'
import type { FeedEvent } from '../feed-event.ts'
import { createOutbox } from './outbox.ts'

export interface SseWriter {
  /** Writes encoded frames; resolves when the connection can take more. */
  write: (chunk: Buffer) => Promise<void>
  /** Ends the response. */
  end: () => void
}

/** One SSE frame as bytes; `data` is JSON text (one line: JSON has no raw line breaks). */
function encodeFrame(id: string | undefined, event: string | undefined, data: string | undefined): Buffer {
  return Buffer.from(
    (id === undefined ? '' : `id: ${id}\n`) +
      (event === undefined ? '' : `event: ${event}\n`) +
      (data === undefined ? '' : `data: ${data}\n`) +
      '\n'
  )
}

const changeFrames = new WeakMap<FeedEvent, Buffer>()

/** A change's frame, encoded once and shared by every subscriber that receives it. */
function changeFrame(event: FeedEvent): Buffer {
  let frame = changeFrames.get(event)
  if (frame === undefined) changeFrames.set(event, (frame = encodeFrame(event.pos, event.name, event.json)))
  return frame
}

function frameOf(message: FeedMessage): Buffer {
  switch (message.type) {
    case 'ready':
      return encodeFrame(message.pos, 'ready', JSON.stringify({ id: message.pos }))
    case 'reset':
      return encodeFrame(message.pos, 'reset', JSON.stringify({ id: message.pos, reason: message.reason }))
    case 'change':
      return changeFrame(message.event)
    case 'position':
      return encodeFrame(message.pos, undefined, undefined)
  }
}

/** The last join, kept until the event loop turns: subscribers handed the same frames share one buffer. */
let lastJoin: { frames: Buffer[]; joined: Buffer } | undefined

function joinFrames(frames: Buffer[]): Buffer {
  const last = lastJoin
  if (last && last.frames.length === frames.length && last.frames.every((frame, i) => frame === frames[i]))
    return last.joined
  if (!last)
    setImmediate(() => {
      lastJoin = undefined
    })
  lastJoin = { frames, joined: Buffer.concat(frames) }
  return lastJoin.joined
}

export function createSseSink(writer: SseWriter, maxBytes: number): FeedSink {
  const listeners: Array<() => void> = []
  let closed = false

  function finish(reason: CloseReason | undefined): void {
    if (closed) return
    closed = true
    outbox.stop()
    if (reason)
      void writer
        .write(encodeFrame(undefined, 'close', JSON.stringify(reason)))
        .catch(() => {})
        .finally(() => writer.end())
    else writer.end()
    for (const listener of listeners) listener()
  }

  const outbox = createOutbox<Buffer>({
    maxBytes,
    sizeOf: frame => frame.length,
    write: frame => writer.write(frame),
    coalesce: joinFrames,
    onOverflow: () =>
      finish({
        code: 'SLOW_CONSUMER',
        message:
          `The client read too slowly: more than ${maxBytes} bytes were waiting. Reconnect with ` +
          `Last-Event-ID to resume.`
      }),
    onError: () => finish(undefined)
  })

  return {
    send: message => {
      if (!closed) outbox.push(frameOf(message))
    },
    // What is still queued is dropped: after a revocation nothing more may reach the client, and
    // any other closing client resumes from its Last-Event-ID.
    close: reason => finish(reason),
    drained: () => outbox.drained(),
    get closed() {
      return closed
    },
    get queuedBytes() {
      return outbox.queuedBytes
    },
    onClose: listener => {
      if (closed) listener()
      else listeners.push(listener)
    }
  }
}
