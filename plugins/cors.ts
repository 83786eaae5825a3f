// CORS for browser front ends on other origins (@fastify/cors), when CORS_ORIGINS names them:
// preflights are answered (204 with the allowed methods and the requested headers), and
// responses to an allowed origin carry Access-Control-Allow-Origin. Without CORS_ORIGINS the
// plugin is not registered at all: no header, and no cost per request.
import fp from 'fastify-plugin'
import cors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'

async function corsPlugin(app: FastifyInstance): Promise<void> {
  const origins = app.config.corsOrigins
  if (origins.length === 0) return
  await app.register(cors, {
    origin: origins.includes('*') ? '*' : origins,
    methods: ['GET', 'POST', 'PUT', 'DELETE'],
    // Scripts may read these: when to retry a 429/503, and a download's file name.
    exposedHeaders: ['Retry-After', 'Content-Disposition', 'X-Request-Id'],
    // A plain OPTIONS (no Origin) is answered like a preflight: 204, not a 400.
    strictPreflight: false,
    maxAge: 600
  })
}

export default fp(corsPlugin, { name: 'cors', dependencies: ['config'] })
