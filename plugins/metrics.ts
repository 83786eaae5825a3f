// GET /metrics in Prometheus' text format (fastify-metrics on prom-client) when METRICS_ENABLED:
// requests by route, method and status with latency histograms; database operations in flight
// against the pool size, their durations and errors; Node's own (event-loop delay, memory, GC).
// With METRICS_TOKEN set, a scrape needs `Authorization: Bearer <token>`. Each app has its own
// registry (several apps may share a process, as in the tests). The packages load only when on.
import fp from 'fastify-plugin'
import type PromClient from 'prom-client'
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { EngineObserver } from '../src/storage/decorators/observe-engine.ts'
import { QuireError } from '../src/errors.ts'
import { ANSWER_UNDER_PRESSURE } from './under-pressure.ts'

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

const digest = (text: string): Buffer => createHash('sha256').update(text).digest()

/** The onRequest check of GET /metrics: nothing without a token, else the bearer token must match. */
function requireToken(token: string | undefined): (request: FastifyRequest) => Promise<void> {
  const expected = token === undefined ? undefined : digest(token)
  return async request => {
    if (!expected) return
    const match = /^bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')
    if (!match) throw new QuireError('AUTH_REQUIRED', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>')
    if (!timingSafeEqual(digest(match[1]), expected)) throw new QuireError('AUTH_FAILED')
  }
}

/** A short, bounded label for an operation's error: the catalogue's code, the SQLSTATE or the driver's. */
function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code
  if (typeof code === 'number') return String(code)
  return typeof code === 'string' && /^[A-Za-z0-9_]{1,40}$/.test(code) ? code : 'other'
}

function observeDatabase(
  app: FastifyInstance,
  promClient: typeof PromClient,
  registry: PromClient.Registry
): EngineObserver {
  const registers = [registry]
  const inFlight = new promClient.Gauge({
    name: 'quire_db_operations_in_flight',
    help: 'Database operations running now (on PostgreSQL, about the pool connections in use)',
    registers
  })
  new promClient.Gauge({
    // eslint-disable-line no-new
    name: 'quire_db_pool_size',
    help: 'Connections the process may hold (PG_POOL_SIZE on PostgreSQL)',
    labelNames: ['engine'],
    registers,
    collect() {
      if (app.db?.kind === 'postgres') this.set({ engine: 'postgres' }, app.config.pgPoolSize)
    }
  })
  const duration = new promClient.Histogram({
    name: 'quire_db_operation_duration_seconds',
    help: 'Database operations by engine method',
    labelNames: ['operation'],
    buckets: LATENCY_BUCKETS,
    registers
  })
  const errors = new promClient.Counter({
    name: 'quire_db_operation_errors_total',
    help: 'Database operations that failed, by engine method and error code',
    labelNames: ['operation', 'code'],
    registers
  })
  return {
    start: operation => {
      inFlight.inc()
      const stop = duration.startTimer({ operation })
      return error => {
        inFlight.dec()
        stop()
        if (error !== undefined) errors.inc({ operation, code: errorCode(error) })
      }
    }
  }
}

async function metricsPlugin(app: FastifyInstance): Promise<void> {
  if (!app.config.metricsEnabled) {
    app.decorate('engineObserver', undefined)
    return
  }
  if (!app.config.metricsToken)
    app.log.warn('GET /metrics is open to anyone who can reach this port: set METRICS_TOKEN to protect it')
  const [{ default: promClient }, { default: fastifyMetricsModule }] = await Promise.all([
    import('prom-client'),
    import('fastify-metrics')
  ])
  const registry = new promClient.Registry()
  // fastify-metrics is CommonJS with an `exports.default`: seen from ESM, the plugin is `.default`.
  await app.register(fastifyMetricsModule.default, {
    promClient,
    endpoint: {
      url: '/metrics',
      method: 'GET',
      logLevel: 'warn',
      config: { authenticate: false, ...ANSWER_UNDER_PRESSURE },
      onRequest: requireToken(app.config.metricsToken),
      schema: {
        summary: 'Prometheus metrics (METRICS_ENABLED; with METRICS_TOKEN set, send it as a bearer token)',
        tags: ['health'],
        security: [{ bearer: [] }]
      },
      handler: async () => undefined // replaced by fastify-metrics' own
    },
    defaultMetrics: { enabled: true, register: registry },
    routeMetrics: {
      enabled: { histogram: true, summary: false },
      overrides: { histogram: { buckets: LATENCY_BUCKETS, registers: [registry] }, summary: { registers: [registry] } }
    }
  })
  app.decorate('engineObserver', observeDatabase(app, promClient, registry))
}

export default fp(metricsPlugin, { name: 'metrics', dependencies: ['config'] })
