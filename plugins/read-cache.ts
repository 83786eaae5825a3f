// Decorates `readCache`: the response cache of document reads (src/cache/read-cache.ts) when
// CACHE_ENABLED, a pass-through otherwise. Every write of this process drops what it touched
// and, where the change log announces changes (PostgreSQL), waits until it is announced to every
// listening process, before the write is answered (app.cacheWrites); other processes' writes
// arrive through the change log, and a hit is served only when this process has heard of every
// change committed before the request came (src/cache/log-check.ts). Where the storage keeps no
// change log the cache stays off (logged).
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Model } from '../src/models/model-definition.ts'
import { createReadCache, type ReadCacheStats } from '../src/cache/read-cache.ts'
import { createLogCheck, type LogCheck } from '../src/cache/log-check.ts'
import { cacheKey } from '../src/cache/cache-key.ts'
import { USER_MODEL } from '../src/auth/users/user-model.ts'
import { CREDENTIAL_MODEL } from '../src/auth/credentials/credential-model.ts'

export interface ReadCacheService {
  /**
   * The answer of `read` (JSON text), or its bytes from the cache when it holds a current one;
   * sets `jxp-cache: hit|miss`.
   */
  serve: (
    request: FastifyRequest,
    reply: FastifyReply,
    model: Model,
    read: () => Promise<string>
  ) => Promise<string | Buffer>
  stats: () => ReadCacheStats
  clear: () => void
  enabled: () => boolean
}

/** Writes to these change what callers may see of every model. */
const PERMISSION_MODELS = new Set([USER_MODEL.name, CREDENTIAL_MODEL.name])
const MAX_ENTRY_BYTES = 1_048_576
const EMPTY: ReadCacheStats = { hits: 0, misses: 0, keys: 0, ksize: 0, vsize: 0 }

async function readCachePlugin(app: FastifyInstance): Promise<void> {
  const { cacheEnabled, cacheTtlSeconds, cacheMaxEntries } = app.config
  const cache = createReadCache({
    ttlMs: cacheTtlSeconds * 1000,
    maxEntries: cacheMaxEntries,
    maxEntryBytes: MAX_ENTRY_BYTES
  })
  const invalidate = (models: string[]): void =>
    cache.invalidate(
      models,
      models.some(m => PERMISSION_MODELS.has(m))
    )
  let check: LogCheck | undefined
  let stop: (() => Promise<void>) | undefined

  if (cacheEnabled) {
    app.cacheWrites.announce = async models => {
      invalidate(models)
      if (check !== undefined) await app.db.changes.announce?.()
    }
    app.addHook('onReady', async () => {
      const log = app.db.changes
      let last: string | undefined
      try {
        stop = await log.follow(async changes => {
          invalidate([...new Set(changes.map(c => c.model))])
          last = changes[changes.length - 1].pos
          check?.delivered(last)
        })
        check = createLogCheck(log, await log.head())
        if (last !== undefined) check.delivered(last)
      } catch (err) {
        app.log.warn({ err }, 'CACHE_ENABLED: the storage keeps no change log to follow, so the response cache is off')
      }
    })
    app.addHook('onClose', async () => {
      await stop?.()
    })
  }

  app.decorate('readCache', {
    enabled: () => check !== undefined,
    serve: async (request, reply, model, read) => {
      if (check === undefined) return await read()
      const key = cacheKey(request)
      // Checked again once the log is caught up: what it delivered meanwhile may have dropped the entry.
      const hit = cache.get(key, cache.has(key) && (await check.caughtUp()))
      if (hit !== undefined) {
        reply.header('jxp-cache', 'hit')
        return hit
      }
      const models = [model.name, ...model.links.map(link => link.target)]
      const generations = cache.snapshot(models)
      const answer = await read()
      cache.set(key, models, generations, answer)
      reply.header('jxp-cache', 'miss')
      return answer
    },
    stats: () => (check === undefined ? EMPTY : cache.stats()),
    clear: () => cache.clear()
  } satisfies ReadCacheService)
}

export default fp(readCachePlugin, { name: 'readCache', dependencies: ['db'] })
