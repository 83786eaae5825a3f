// The response cache's administration (admins only, as JXP's): GET /cache/stats (node-cache's
// statistics: hits, misses, keys, ksize, vsize) and GET /cache/clear (POST as well: a GET that
// changes something is JXP's, kept for its clients). Without CACHE_ENABLED the cache is empty.
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { OkMessage } from '../schemas/common.ts'
import { requireAdmin } from '../src/permissions/access.ts'

const CacheStats = Type.Object({
  hits: Type.Integer(),
  misses: Type.Integer(),
  keys: Type.Integer(),
  ksize: Type.Integer(),
  vsize: Type.Integer(),
  enabled: Type.Boolean()
})

export default async function cacheRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

  app.get(
    '/cache/stats',
    { schema: { summary: "The response cache's statistics (admins)", response: { 200: CacheStats } } },
    async request => {
      requireAdmin(request.caller, "see the cache's statistics")
      return { ...app.readCache.stats(), enabled: app.readCache.enabled() }
    }
  )

  app.route({
    method: ['GET', 'POST'],
    url: '/cache/clear',
    schema: { summary: 'Empty the response cache of this process (admins)', response: { 200: OkMessage } },
    handler: async request => {
      requireAdmin(request.caller, 'clear the cache')
      app.readCache.clear()
      return { status: 'ok' as const, message: 'Cache cleared' }
    }
  })
}
