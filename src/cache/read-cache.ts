// The response cache of GET /api/{model} and /api/{model}/{id} (CACHE_ENABLED): answers kept
// per caller's view (cache-key.ts), each with the models it was read from (the model and its
// links' targets). A write to one of them drops it: every model has a generation, bumped by
// this process's writes at once and by other processes' through the change log; an entry is
// valid only while the generations it was read under are current, so a read that raced a
// write is never kept. A write to users or credentials (permissions, groups) drops everything.
// Bounded: at most `maxEntries` (least recently used first), each at most `maxEntryBytes`,
// each kept at most `ttlMs`. Answers are kept as the bytes sent, so a hit encodes nothing.

export interface ReadCacheStats {
  hits: number
  misses: number
  keys: number
  ksize: number
  vsize: number
}

export interface ReadCache {
  /** The generations of `models` now: taken before a read, given back to set(). */
  snapshot: (models: string[]) => number[]
  /** Whether a current entry exists (no statistics counted): worth checking the change log for. */
  has: (key: string) => boolean
  /** The current entry, counted as a hit; a miss when there is none or `vouched` is false. */
  get: (key: string, vouched?: boolean) => Buffer | undefined
  /** Keeps `value` (as UTF-8) unless one of `models` was written since `generations` was taken. */
  set: (key: string, models: string[], generations: number[], value: string) => void
  /** Drops what was read from `models` (all of it when `everything`). */
  invalidate: (models: string[], everything?: boolean) => void
  clear: () => void
  /** node-cache's statistics, which JXP's /cache/stats answers. */
  stats: () => ReadCacheStats
}

export interface ReadCacheOptions {
  ttlMs: number
  maxEntries: number
  maxEntryBytes: number
  now?: () => number
}

interface Entry {
  value: Buffer
  models: string[]
  generations: number[]
  at: number
}

export function createReadCache({ ttlMs, maxEntries, maxEntryBytes, now = Date.now }: ReadCacheOptions): ReadCache {
  const entries = new Map<string, Entry>()
  const generations = new Map<string, number>()
  /** Bumped by writes to users and credentials: every entry's first generation. */
  let epoch = 0
  let hits = 0
  let misses = 0
  const snapshot = (models: string[]): number[] => [epoch, ...models.map(m => generations.get(m) ?? 0)]
  /** Whether the generations `entry` was read under are current (checked on every hit: allocates nothing). */
  const current = (entry: Entry): boolean => {
    if (entry.generations[0] !== epoch) return false
    for (let i = 0; i < entry.models.length; i++)
      if ((generations.get(entry.models[i]) ?? 0) !== entry.generations[i + 1]) return false
    return true
  }

  const valid = (entry: Entry | undefined): entry is Entry =>
    entry !== undefined && current(entry) && now() - entry.at < ttlMs

  return {
    snapshot,
    has: key => valid(entries.get(key)),
    get: (key, vouched = true) => {
      const entry = entries.get(key)
      if (!vouched || !valid(entry)) {
        if (entry !== undefined) entries.delete(key)
        misses++
        return undefined
      }
      entries.delete(key)
      entries.set(key, entry) // most recently used last
      hits++
      return entry.value
    },
    set: (key, models, taken, text) => {
      if (text.length > maxEntryBytes) return
      const entry = { value: Buffer.from(text), models, generations: taken, at: now() }
      if (entry.value.length > maxEntryBytes || !current(entry)) return
      entries.delete(key)
      while (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string)
      entries.set(key, entry)
    },
    invalidate: (models, everything = false) => {
      if (everything) epoch++
      for (const model of models) generations.set(model, (generations.get(model) ?? 0) + 1)
    },
    clear: () => {
      entries.clear()
      epoch++
    },
    stats: () => {
      let ksize = 0
      let vsize = 0
      for (const [key, entry] of entries) {
        ksize += key.length
        vsize += entry.value.length
      }
      return { hits, misses, keys: entries.size, ksize, vsize }
    }
  }
}
