// A subscription delivered as Server-Sent Events: `ready`, `reset`, `create`, `update`,
// `delete` and `close` events, each change with its position as the event id, and
// id-only frames that keep a quiet client's Last-Event-ID current. Frames go through a
// bounded outbox: a client that does not read is closed with SLOW_CONSUMER.
import type { CloseReason, FeedMessage, FeedSink } from './feed-sink.ts'
import { createOutbox } from './outbox.ts'

/** One SSE frame; `data` is JSON text. */
export interface SseFrame { id?: string, event?: string, data?: string }

export interface SseWriter {
  /** Writes a frame; resolves when the connection can take the next one. */
  send: (frame: SseFrame) => Promise<void>
  /** Ends the response. */
  end: () => void
}

function frameOf (message: FeedMessage): SseFrame {
  switch (message.type) {
    case 'ready': return { id: message.pos, event: 'ready', data: JSON.stringify({ id: message.pos }) }
    case 'reset': return { id: message.pos, event: 'reset', data: JSON.stringify({ id: message.pos, reason: message.reason }) }
    case 'change': return { id: message.event.pos, event: message.event.name, data: message.event.json }
    case 'position': return { id: message.pos, data: undefined }
  }
}

export function createSseSink (writer: SseWriter, maxBytes: number): FeedSink {
  const listeners: Array<() => void> = []
  let closed = false

  function finish (reason: CloseReason | undefined): void {
    if (closed) return
    closed = true
    outbox.stop()
    if (reason) void writer.send({ event: 'close', data: JSON.stringify(reason) }).catch(() => {}).finally(() => writer.end())
    else writer.end()
    for (const listener of listeners) listener()
  }

  const outbox = createOutbox<SseFrame>({
    maxBytes,
    sizeOf: frame => (frame.data?.length ?? 0) + 32,
    write: frame => writer.send(frame),
    onOverflow: () => finish({ code: 'SLOW_CONSUMER', message: `The client read too slowly: more than ${maxBytes} bytes were waiting. Reconnect with Last-Event-ID to resume.` }),
    onError: () => finish(undefined)
  })

  return {
    send: message => { if (!closed) outbox.push(frameOf(message)) },
    // What is still queued is dropped: after a revocation nothing more may reach the client, and
    // any other closing client resumes from its Last-Event-ID.
    close: reason => finish(reason),
    drained: () => outbox.drained(),
    get closed () { return closed },
    get queuedBytes () { return outbox.queuedBytes },
    onClose: listener => { listeners.push(listener) }
  }
}
