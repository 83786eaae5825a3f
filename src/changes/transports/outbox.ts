// A bounded queue of frames in front of a slow writer (a socket): frames are
// written one at a time, each after the previous one was accepted (or, with `coalesce`,
// whatever queued meanwhile as one frame: one socket write per burst). When the queued
// bytes would pass the bound, the outbox overflows: it drops what it holds and stops,
// so a client that does not read costs at most `maxBytes` of memory.

export interface Outbox<T> {
  /** Queues a frame; false when it overflowed (now or before). */
  push: (frame: T) => boolean
  /** Settles once every queued frame was written (or the outbox stopped). */
  drained: () => Promise<void>
  /** Drops what is queued and stops writing. */
  stop: () => void
  /** Bytes queued and not yet handed to the writer. */
  readonly queuedBytes: number
}

export interface OutboxOptions<T> {
  maxBytes: number
  /** The memory a frame holds, about (its text's length). */
  sizeOf: (frame: T) => number
  /** Writes one frame; resolves when the transport can take the next one. */
  write: (frame: T) => Promise<void>
  /** Joins the frames waiting when the writer is free into one, written at once (optional: else one at a time). */
  coalesce?: (frames: T[]) => T
  /** Called once, when a frame did not fit. */
  onOverflow: () => void
  /** Called when `write` fails (the client went away). */
  onError: (err: unknown) => void
}

export function createOutbox<T>(options: OutboxOptions<T>): Outbox<T> {
  let queue: Array<{ frame: T; size: number }> = []
  let bytes = 0
  let writing = false
  let stopped = false
  let waiters: Array<() => void> = []

  function settleWaiters(): void {
    const settled = waiters
    waiters = []
    for (const resolve of settled) resolve()
  }

  function stop(): void {
    stopped = true
    queue = []
    bytes = 0
    settleWaiters()
  }

  /** The next frame to write: the first waiting, or all of them joined. */
  function take(): T {
    if (!options.coalesce || queue.length === 1) {
      const { frame, size } = queue.shift()!
      bytes -= size
      return frame
    }
    const frames = queue.map(item => item.frame)
    queue = []
    bytes = 0
    return options.coalesce(frames)
  }

  async function pump(): Promise<void> {
    writing = true
    while (queue.length > 0 && !stopped) {
      const frame = take()
      try {
        await options.write(frame)
      } catch (err) {
        stop()
        options.onError(err)
      }
    }
    writing = false
    settleWaiters()
  }

  return {
    push: frame => {
      if (stopped) return false
      const size = options.sizeOf(frame)
      if (queue.length > 0 && bytes + size > options.maxBytes) {
        stop()
        options.onOverflow()
        return false
      }
      queue.push({ frame, size })
      bytes += size
      if (!writing) void pump()
      return true
    },
    drained: () =>
      stopped || (!writing && queue.length === 0)
        ? Promise.resolve()
        : new Promise(resolve => {
            waiters.push(resolve)
          }),
    stop,
    get queuedBytes() {
      return bytes
    }
  }
}
