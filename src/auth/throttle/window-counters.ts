// Fixed-window counters per key: the state behind every rate limit (the login throttle, the
// login endpoints' request buckets, wrong current passwords). They live in this process, or,
// in a worker of `quire serve` with WORKERS > 1, in the cluster primary, which every worker
// asks over the cluster's IPC channel (src/cluster/counter-channel.ts): N workers, one budget.
import { askPrimaryCounters } from '../../cluster/counter-channel.ts'
import { isQuireWorker } from '../../cluster/cluster-role.ts'

/** Keys kept at most; past that, expired windows go first, then the oldest key. */
const MAX_KEYS = 50_000

export interface WindowCount {
  /** Events counted in the key's current window. */
  count: number
  /** Milliseconds until that window ends. */
  ttl: number
}

export interface WindowCounters {
  /** Counts `by` events (0: only reads) for `key`, opening a `windowMs` window when none is running. */
  add: (key: string, windowMs: number, by: number) => Promise<WindowCount>
  /** Forgets `key`'s window. */
  reset: (key: string) => Promise<void>
}

export interface CounterTable {
  add: (key: string, windowMs: number, by: number) => WindowCount
  reset: (key: string) => void
}

/** The counters themselves, in memory, on the clock `now`. */
export function createCounterTable(now: () => number): CounterTable {
  const windows = new Map<string, { count: number; endsAt: number }>()

  function prune(): void {
    const at = now()
    for (const [key, entry] of windows) if (entry.endsAt <= at) windows.delete(key)
    if (windows.size >= MAX_KEYS) windows.delete(windows.keys().next().value as string)
  }

  return {
    add: (key, windowMs, by) => {
      let entry = windows.get(key)
      if (entry && entry.endsAt <= now()) {
        windows.delete(key)
        entry = undefined
      }
      if (!entry && by > 0) {
        if (windows.size >= MAX_KEYS) prune()
        windows.set(key, (entry = { count: 0, endsAt: now() + windowMs }))
      }
      if (!entry) return { count: 0, ttl: 0 }
      entry.count += by
      return { count: entry.count, ttl: entry.endsAt - now() }
    },
    reset: key => {
      windows.delete(key)
    }
  }
}

let inWorker: WindowCounters | undefined

/**
 * The counters a rate limit uses: the cluster primary's in a `quire serve` worker (one budget for
 * every worker, on the primary's clock), else a table of this process on the clock `now`.
 */
export function countersFor(now: () => number): WindowCounters {
  if (isQuireWorker()) return (inWorker ??= askPrimaryCounters())
  const table = createCounterTable(now)
  return {
    add: async (key, windowMs, by) => table.add(key, windowMs, by),
    reset: async key => {
      table.reset(key)
    }
  }
}
