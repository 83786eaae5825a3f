// Builds the Quire Fastify application: plugins in dependency order, then the
// autoloaded routes. Used by the CLI, the tests and the benchmark.
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import fp from 'fastify-plugin'
import autoload from '@fastify/autoload'
import { fileURLToPath } from 'node:url'
import { join, dirname } from 'node:path'
import type { Config } from './src/config.ts'
import './plugins/types.ts'
import errors from './plugins/errors.ts'
import requestLog, { RequestLog, requestId } from './plugins/request-log.ts'
import requestBodies from './plugins/request-bodies.ts'
import inputGuard from './plugins/input-guard.ts'
import underPressure from './plugins/under-pressure.ts'
import gracefulClose from './plugins/graceful-close.ts'
import requestScope from './plugins/request-scope.ts'
import metrics from './plugins/metrics.ts'
import securityHeaders from './plugins/security-headers.ts'
import cors from './plugins/cors.ts'
import db from './plugins/db.ts'
import auth from './plugins/auth.ts'
import firstAdmin from './plugins/first-admin.ts'
import inFlightLimits from './plugins/in-flight-limits.ts'
import endpointLimits from './plugins/endpoint-limits.ts'
import queryBuilder from './plugins/query-builder.ts'
import documents from './plugins/documents.ts'
import readCache from './plugins/read-cache.ts'
import openApi from './plugins/openapi.ts'
import modelCode from './plugins/model-code.ts'
import changes from './plugins/changes.ts'
import websocket from './plugins/websocket.ts'
import { withRedactedUrls } from './src/auth/log-redaction.ts'
import { automaticMaxConnections, openFilesLimit } from './src/connection-limit.ts'

const here = dirname(fileURLToPath(import.meta.url))
// Run as TypeScript (tests, `npm run dev`), the routes are TypeScript too, loaded the way this
// file was (tsx); autoload cannot always tell. The build (dist/) has JavaScript routes.
if (import.meta.url.endsWith('.ts')) process.env.FASTIFY_AUTOLOAD_TYPESCRIPT ??= '1'

export interface AppOptions {
  config: Config
  logger?: FastifyServerOptions['logger']
}

export async function buildApp({ config, logger = false }: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: withRedactedUrls(logger),
    bodyLimit: config.bodyLimitBytes,
    // Fastify turns Node's request timeout off: without one, a client sending a body a byte at a
    // time holds its connection and buffered body for ever. Node checks it every
    // connectionsCheckingInterval (30 s by default, as long as the default timeout): a tenth of it.
    // Node's headers timeout (60 s) must not be longer, or it delays the request timeout's answer.
    requestTimeout: config.requestTimeoutMs,
    http: {
      connectionsCheckingInterval: Math.max(1000, Math.floor(config.requestTimeoutMs / 10)),
      headersTimeout: Math.min(60_000, config.requestTimeoutMs || 60_000)
    },
    trustProxy: config.trustProxy,
    // One line per request (plugins/request-log.ts), with the client's X-Request-Id when safe.
    logController: new RequestLog(),
    genReqId: requestId,
    // No limit: syncing the schema on start may build indexes over millions of documents (it logs
    // its progress); a database that cannot be reached still fails through the driver's timeouts.
    pluginTimeout: 0,
    routerOptions: { maxParamLength: 200 },
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false, allErrors: true } }
  })
  const maxConnections = config.maxConnections || automaticMaxConnections(openFilesLimit())
  if (maxConnections > 0) app.server.maxConnections = maxConnections
  app.register(
    fp(
      async instance => {
        instance.decorate('config', config)
      },
      { name: 'config' }
    )
  )
  app.register(errors)
  app.register(requestLog)
  app.register(websocket)
  app.register(underPressure)
  app.register(gracefulClose)
  app.register(inFlightLimits)
  app.register(requestScope)
  // Before every plugin that adds routes: @fastify/swagger documents the routes registered after it.
  app.register(openApi)
  app.register(metrics)
  app.register(securityHeaders)
  app.register(cors)
  app.removeContentTypeParser('text/plain')
  app.register(requestBodies)
  app.register(inputGuard)
  app.register(db)
  app.register(auth)
  app.register(firstAdmin)
  app.register(endpointLimits)
  app.register(queryBuilder)
  app.register(modelCode)
  app.register(documents)
  app.register(readCache)
  app.register(changes)
  app.register(autoload, { dir: join(here, 'routes'), forceESM: true })
  try {
    await app.ready()
  } catch (err) {
    await app.close() // a refused start (e.g. a secret that differs) still releases the database
    throw err
  }
  return app
}
