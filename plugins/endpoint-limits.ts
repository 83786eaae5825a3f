// Request limits of the login endpoints (@fastify/rate-limit): each endpoint
// counts requests per client address (IPv6 by its /64) in a bucket of its own,
// so that a burst on one (say /login) never throttles another (/refresh).
// Routes opt in with `config: { rateLimit: app.endpointLimit('login') }`. The buckets are
// window counters (src/auth/throttle/window-counters.ts): with WORKERS > 1 the cluster primary keeps
// them, so N workers do not give a client N times the budget.
import fp from 'fastify-plugin'
import rateLimit, {
  type FastifyRateLimitStore,
  type FastifyRateLimitStoreCtor,
  type RateLimitOptions
} from '@fastify/rate-limit'
import type { FastifyInstance } from 'fastify'
import { QuireError } from '../src/errors.ts'
import { countersFor, type WindowCounters } from '../src/auth/throttle/window-counters.ts'
import { clientAddress } from '../src/runtime/client-address.ts'

/** Requests per address and minute, as multiples of LOGIN_RATE_LIMIT. */
export const ENDPOINT_LIMITS = {
  login: 1,
  /** Refresh tokens cannot be guessed: this only bounds load, and clients refresh in ordinary use. */
  refresh: 6,
  recover: 1,
  reset: 1,
  loginLink: 1,
  setup: 1
} as const

export type LimitedEndpoint = keyof typeof ENDPOINT_LIMITS

declare module 'fastify' {
  interface FastifyInstance {
    /** The route config `rateLimit` of a login endpoint (false when LOGIN_RATE_LIMIT is 0). */
    endpointLimit: (endpoint: LimitedEndpoint) => RateLimitOptions | false
  }
}

type RouteLimit = { routeInfo?: { method?: string | string[]; url?: string } }

/** A @fastify/rate-limit store on window counters; each route's child counts under its own name. */
function counterStore(counters: WindowCounters, name = ''): FastifyRateLimitStore {
  return {
    incr: (key, callback, timeWindow) => {
      counters.add(`endpoint ${name}\n${key}`, timeWindow, 1).then(
        ({ count, ttl }) => callback(null, { current: count, ttl }),
        (err: Error) => callback(err)
      )
    },
    child: options => {
      const route = (options as RouteLimit).routeInfo
      return counterStore(counters, `${String(route?.method)} ${route?.url ?? ''}`)
    }
  }
}

async function endpointLimitsPlugin(app: FastifyInstance): Promise<void> {
  const store = counterStore(countersFor(Date.now))
  await app.register(rateLimit, {
    global: false,
    // The plugin calls `new store(options)`: a constructor that returns an object gives that object.
    store: function CounterStore() {
      return store
    } as unknown as FastifyRateLimitStoreCtor,
    timeWindow: 60_000,
    keyGenerator: request => clientAddress(request.ip),
    errorResponseBuilder: (request, context) => {
      const retryAfter = Math.max(1, Math.ceil(context.ttl / 1000))
      return new QuireError(
        'RATE_LIMITED',
        `Too many requests to ${request.routeOptions.url ?? 'this endpoint'} from your address: try again ` +
          `in ${retryAfter} s`,
        { retryAfter }
      )
    }
  })
  const perMinute = app.config.loginRateLimit
  app.decorate(
    'endpointLimit',
    (endpoint: LimitedEndpoint) => perMinute > 0 && { max: perMinute * ENDPOINT_LIMITS[endpoint], timeWindow: 60_000 }
  )
}

export default fp(endpointLimitsPlugin, { name: 'endpoint-limits', dependencies: ['config', 'errors'] })
