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
  /** The collection's size estimate, cached for a few seconds (src/query/plan-list.ts: decides exact counts). */
  estimateCount: (modelName: string) => Promise<number>
  /** The models' code: hooks and methods (src/models/model-code.ts). */
  code: ModelCodeRegistry
  /** The documents API for model code, acting for this context's caller. */
  documents: ScopedDocuments
  log: Record<'error' | 'info', (details: { err: unknown }, message: string) => void>
}
