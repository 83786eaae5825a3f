// A fixed-window counter per key (an address, an account) on shared window counters
// (window-counters.ts: this process's, or the cluster primary's with WORKERS > 1), to slow
// password guessing. Over the limit -> 429 with Retry-After (the error handler sets the
// header from details.retryAfter). A limit of 0 turns the limiter off.
import { QuireError } from '../../errors.ts'
import type { WindowCounters } from './window-counters.ts'

export interface RateLimiter {
  /** Throws RATE_LIMITED when `key` has used up its window. */
  check: (key: string) => Promise<void>
  /** Counts one event for `key`. */
  record: (key: string) => Promise<void>
  /** Forgets `key` (e.g. an account's failures after a successful login). */
  reset: (key: string) => Promise<void>
}

/** `name` keeps this limiter's keys apart from others' on the same counters; `what` starts the 429's message. */
export function createRateLimiter(
  counters: WindowCounters,
  name: string,
  limit: number,
  windowMs: number,
  what = 'Too many attempts'
): RateLimiter {
  const keyOf = (key: string): string => `${name}\n${key}`
  if (limit <= 0) return { check: async () => {}, record: async () => {}, reset: async () => {} }
  return {
    check: async key => {
      const { count, ttl } = await counters.add(keyOf(key), windowMs, 0)
      if (count >= limit) {
        const retryAfter = Math.max(1, Math.ceil(ttl / 1000))
        throw new QuireError('RATE_LIMITED', `${what}: try again in ${retryAfter} s`, { retryAfter })
      }
    },
    record: async key => {
      await counters.add(keyOf(key), windowMs, 1)
    },
    reset: async key => {
      await counters.reset(keyOf(key))
    }
  }
}
