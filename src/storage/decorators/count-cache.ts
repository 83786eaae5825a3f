// Wraps an Engine so that exact counts of lists are reused for a short time:
// counting is O(matching rows), the page itself is not. Concurrent reads that
// miss share one count. Any write this process makes to a model drops that
// model's counts at once, and so do the writes of `peers` (the other workers of a cluster,
// src/cluster/count-channel.ts); other processes' writes show within the time to live
// (COUNT_CACHE_MS). A shared count is cancelled only when every reader waiting for it left.
import type { Authorized, Engine, FindQuery } from '../engine.ts'
import type { Model } from '../../models/model-definition.ts'
import type { Filter } from '../../query/types.ts'
import { shareWork, type SharedWork } from '../../runtime/request-scope.ts'
import { wrapWrites } from './on-writes.ts'

const MAX_ENTRIES = 10_000

interface Entry {
  count: Promise<number>
  at: number
  generation: number
  readers: SharedWork
  settled: boolean
}

/** Other processes' count caches: told of this one's writes, and telling it of theirs. */
export interface CountPeers {
  tell: (models: string[]) => void
  hear: (listener: (models: string[]) => void) => void
}

export function withCountCache(
  engine: Engine,
  ttlMs: number,
  now: () => number = Date.now,
  peers?: CountPeers
): Engine {
  if (ttlMs <= 0) return engine
  const counts = new Map<string, Entry>()
  const generations = new Map<string, number>()
  const generationOf = (model: Model): number => generations.get(model.name) ?? 0
  const forget = (names: string[]): void => {
    for (const name of names) generations.set(name, (generations.get(name) ?? 0) + 1)
  }
  const changed = (models: Model[]): void => {
    const names = models.map(m => m.name)
    forget(names)
    peers?.tell(names)
  }
  peers?.hear(forget)
  // "No search" and an empty search are different queries: the key tells them apart.
  const keyOf = (model: Model, filter: Filter, search?: string): string =>
    JSON.stringify([model.name, search ?? null, filter])

  /** The count to reuse: a known one, or one still running that this reader joins. */
  function cached(model: Model, key: string): Promise<number> | undefined {
    const hit = counts.get(key)
    const fresh = hit && hit.generation === generationOf(model) && now() - hit.at < ttlMs
    return fresh && (hit.settled || hit.readers.join()) ? hit.count : undefined
  }
  function remember(model: Model, key: string, count: Promise<number>, readers: SharedWork): void {
    if (counts.size >= MAX_ENTRIES) counts.delete(counts.keys().next().value as string)
    const entry: Entry = { count, at: now(), generation: generationOf(model), readers, settled: false }
    counts.set(key, entry)
    count.then(
      () => {
        entry.settled = true
      },
      () => {
        if (counts.get(key) === entry) counts.delete(key)
      }
    )
  }

  return {
    ...engine,
    find: async (model: Model, query: Authorized<FindQuery>) => {
      if (!query.count) return await engine.find(model, query)
      const key = keyOf(model, query.filter, query.search)
      const count = cached(model, key)
      if (count !== undefined) {
        const [page, n] = await Promise.all([engine.find(model, { ...query, count: false }), count])
        return { ...page, count: n }
      }
      const readers = shareWork()
      readers.join()
      const result = readers.run(() => engine.find(model, query))
      remember(
        model,
        key,
        result.then(r => r.count ?? 0),
        readers
      )
      return await result
    },
    // Every write drops the counts of the models it touched (a cascading delete's too).
    ...wrapWrites(engine, async (models, write) => {
      try {
        return await write()
      } finally {
        changed(models)
      }
    })
  }
}
