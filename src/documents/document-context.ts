// What the document operations need from the running service, per request.
import type { Caller } from '../auth/caller.ts'
import type { Config } from '../config.ts'
import type { Engine } from '../storage/engine.ts'
import type { SystemStore } from '../permissions/system-access.ts'
import type { ModelRegistry } from '../models/model-registry.ts'
import type { QueryBuilder } from '../query/query-builder.ts'
import type { ModelCodeRegistry } from '../models/model-code.ts'
import type { ScopedDocuments } from './scoped-documents.ts'

export interface DocumentContext {
  engine: Engine
  /** The engine for the service's own records (users' sessions), outside any caller's permissions. */
  system: SystemStore
  registry: ModelRegistry
  config: Config
  caller: Caller
  queryBuilder: QueryBuilder
  /** The collection's size estimate, cached for a few seconds (decides exact counts). */
  estimateCount: (modelName: string) => Promise<number>
  /** The models' code: hooks and methods (src/models/model-code.ts). */
  code: ModelCodeRegistry
  /** The documents API for model code, acting for this context's caller. */
  documents: ScopedDocuments
  log: Record<'error' | 'info', (details: { err: unknown }, message: string) => void>
}

const ESTIMATE_TTL_MS = 5000

/** A cached wrapper around engine.estimateCount, one per process. */
export function cachedEstimates(
  engine: Engine,
  registry: ModelRegistry,
  now: () => number = Date.now
): (modelName: string) => Promise<number> {
  const cache = new Map<string, { n: number; at: number }>()
  return async modelName => {
    const hit = cache.get(modelName)
    if (hit && now() - hit.at < ESTIMATE_TTL_MS) return hit.n
    const n = await engine.estimateCount(registry.get(modelName))
    cache.set(modelName, { n, at: now() })
    return n
  }
}
