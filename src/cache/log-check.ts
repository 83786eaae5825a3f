// Whether this process has heard of every change committed before a request came, so that a
// cached answer may be served: the position a check reads is not beyond the last position the
// cache's follower delivered. Where the log announces changes (PostgreSQL's NOTIFY, `heard`), the
// check is a round trip on this process's listening connection, which reads no table; writers
// answer only once their changes are announced (plugins/read-cache.ts), so a write answered before
// a request came has been heard by then. Elsewhere (MongoDB) it reads the log's head. A check that
// cannot vouch (the listening connection down or replaced, an error) is a miss. Requests that come
// while a check runs share the next one (a check that started before a request came cannot vouch for it).
import type { ChangeLog } from '../storage/change-log.ts'

export interface LogCheck {
  /** The follower delivered up to `pos`. */
  delivered: (pos: string) => void
  /** True when everything committed and answered before this call has been delivered. */
  caughtUp: () => Promise<boolean>
}

export function createLogCheck(log: ChangeLog, start: string): LogCheck {
  let delivered = start
  let running: Promise<string | undefined> | undefined
  let next: Promise<string | undefined> | undefined
  const readPosition = log.heard ?? log.head

  function check(): Promise<string | undefined> {
    if (running === undefined) {
      running = readPosition()
        .catch(() => undefined)
        .finally(() => {
          running = undefined
        })
      return running
    }
    next ??= running.then(() => {
      next = undefined
      return check()
    })
    return next
  }

  return {
    delivered: pos => {
      if (log.compare(pos, delivered) > 0) delivered = pos
    },
    caughtUp: async () => {
      const pos = await check()
      return pos !== undefined && log.compare(pos, delivered) <= 0
    }
  }
}
