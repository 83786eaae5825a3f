// Type declarations for what the plugins decorate the Fastify instance and requests with.
import type { Config } from '../src/config.ts'
import type { Engine } from '../src/storage/engine.ts'
import type { ModelRegistry } from '../src/models/model-registry.ts'
import type { Caller } from '../src/auth/caller.ts'
import type { QueryBuilder } from '../src/query/query-builder.ts'
import type { AuthService } from './auth.ts'
import type { CacheWrites, CredentialWrites } from './db.ts'
import type { ReadCacheService } from './read-cache.ts'
import type { DocumentContext } from '../src/documents/document-context.ts'
import type { SystemStore } from '../src/permissions/system-access.ts'
import type { EngineObserver } from '../src/storage/decorators/observe-engine.ts'
import type { ModelCodeRegistry } from '../src/models/model-code.ts'

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
    db: Engine
    /** The engine for the service's own records (users, credentials): src/permissions/system-access.ts. */
    system: SystemStore
    models: ModelRegistry
    /** Called after every write to users or credentials (plugins/db.ts); the auth plugin sets it. */
    credentialWrites: CredentialWrites
    /** Called after every write with the models written (plugins/db.ts); the read cache sets it. */
    cacheWrites: CacheWrites
    /** The response cache of document reads (CACHE_ENABLED; plugins/read-cache.ts). */
    readCache: ReadCacheService
    /** Hooks and methods of the models that have code (src/models/model-code.ts). */
    modelCode: ModelCodeRegistry
    queryBuilder: QueryBuilder
    /** Quire's credentials service (`auth` is @fastify/auth's composer). */
    credentials: AuthService
    documentContext: (request: FastifyRequest) => DocumentContext
    /** Sees every database operation when metrics are on (plugins/metrics.ts); undefined otherwise. */
    engineObserver: EngineObserver | undefined
  }
  interface FastifyRequest {
    caller: Caller
  }
}
