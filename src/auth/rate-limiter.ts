// A small fixed-window counter per key (an address, an account), in memory:
// enough to slow password guessing on one process. Over the limit -> 429 with
// Retry-After (the error handler sets the header from details.retryAfter).
// A limit of 0 turns the limiter off.
import { QuireError } from '../errors.ts'
import type { Clock } from './clock.ts'

const MAX_KEYS = 50_000

export interface RateLimiter {
  /** Throws RATE_LIMITED when `key` has used up its window. */
  check: (key: string) => void
  /** Counts one event for `key`. */
  record: (key: string) => void
  /** Forgets `key` (e.g. an account's failures after a successful login). */
  reset: (key: string) => void
}

/** `what` starts the 429's message, e.g. "Too many failed logins from your address". */
export function createRateLimiter (limit: number, windowMs: number, clock: Clock, what = 'Too many attempts'): RateLimiter {
  const windows = new Map<string, { count: number, endsAt: number }>()

  function current (key: string): { count: number, endsAt: number } | undefined {
    const entry = windows.get(key)
    if (entry && entry.endsAt <= clock.now()) windows.delete(key)
    return entry && entry.endsAt > clock.now() ? entry : undefined
  }

  function prune (): void {
    for (const key of windows.keys()) current(key)
    if (windows.size >= MAX_KEYS) windows.delete(windows.keys().next().value as string)
  }

  return {
    check: (key) => {
      const entry = current(key)
      if (limit > 0 && entry && entry.count >= limit) {
        const retryAfter = Math.max(1, Math.ceil((entry.endsAt - clock.now()) / 1000))
        throw new QuireError('RATE_LIMITED', `${what}: try again in ${retryAfter} s`, { retryAfter })
      }
    },
    record: (key) => {
      const entry = current(key)
      if (entry) { entry.count++; return }
      if (windows.size >= MAX_KEYS) prune()
      windows.set(key, { count: 1, endsAt: clock.now() + windowMs })
    },
    reset: (key) => { windows.delete(key) }
  }
}
