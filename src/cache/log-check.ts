// Whether this process has heard of every committed change: the change log's head (every
// committed change numbered) is not beyond the last position the cache's follower delivered.
// A cached answer is served only then, so a write another process answered before this request
// came is never followed by a stale hit here. Requests that come while a check runs share the
// next one (a check that started before a request came cannot vouch for it).
import type { ChangeLog } from '../storage/change-log.ts'

export interface LogCheck {
  /** The follower delivered up to `pos`. */
  delivered: (pos: string) => void
  /** True when nothing committed before this call is still to be delivered. */
  caughtUp: () => Promise<boolean>
}

export function createLogCheck(log: ChangeLog, start: string): LogCheck {
  let delivered = start
  let running: Promise<string> | undefined
  let next: Promise<string> | undefined

  function readHead(): Promise<string> {
    if (running === undefined) {
      running = log.head().finally(() => {
        running = undefined
      })
      return running
    }
    next ??= running
      .catch(() => {})
      .then(() => {
        next = undefined
        return readHead()
      })
    return next
  }

  return {
    delivered: pos => {
      if (log.compare(pos, delivered) > 0) delivered = pos
    },
    caughtUp: async () => log.compare(await readHead(), delivered) <= 0
  }
}
