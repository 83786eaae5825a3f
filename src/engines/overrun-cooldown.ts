// On PGlite, a request's expensive statement that runs past its budget costs every client a
// worker replacement: all statements wait for the overrun and then for the new worker. One
// anonymous client that sent such queries in a loop held every other client's reads by id at
// 2.3 s. After an overrun, that client address's next expensive statements are refused (429 with
// Retry-After) for a while; its simple ones (reads and writes by id, logins) still run.
import { QuireError } from '../errors.ts'

export interface OverrunCooldown {
  /** Throws RATE_LIMITED while `client` is cooling down after an overrun. */
  check: (client: string) => void
  /** Starts `client`'s cool-down. */
  overran: (client: string) => void
}

/** Past this many addresses cooling down, the ones whose time is up are forgotten. */
const PRUNE_AT = 1000

const now = (): number => performance.now()

/** A cool-down of `ms` after each overrun (0: none). */
export function createOverrunCooldown (ms: number): OverrunCooldown {
  const until = new Map<string, number>()
  return {
    check: (client) => {
      const end = until.get(client)
      if (end === undefined) return
      const left = end - now()
      if (left <= 0) {
        until.delete(client)
        return
      }
      const retryAfter = Math.ceil(left / 1000)
      throw new QuireError('RATE_LIMITED', 'Your previous query ran past its time budget, which restarts the embedded database for every client: ' +
        `queries that may scan are refused from your address for ${retryAfter} s`, { retryAfter })
    },
    overran: (client) => {
      if (ms <= 0) return
      if (until.size >= PRUNE_AT) for (const [key, end] of until) if (end <= now()) until.delete(key)
      until.set(client, now() + ms)
    }
  }
}
