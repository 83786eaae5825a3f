// Decorates the instance with `auth` (passwords, sessions, API keys, login
// links, the recovery mailer, rate limits) and every request with `caller`, resolved from
// the one credential presented. Presented credentials that fail are a 401,
// never a silent fall-back to anonymous.
import fp from 'fastify-plugin'
import fastifyJwt from '@fastify/jwt'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { createApiKeys, type ApiKeys } from '../src/auth/api-keys.ts'
import { ANONYMOUS, callerFromUser, type Caller } from '../src/auth/caller.ts'
import { systemClock, type Clock } from '../src/auth/clock.ts'
import { CREDENTIAL_MODEL } from '../src/auth/credential-model.ts'
import { createLoginLinks, type JwtCodec, type LoginLinks } from '../src/auth/login-links.ts'
import { createPasswordChecker, type PasswordChecker } from '../src/auth/password-checker.ts'
import { presentedCredential } from '../src/auth/presented-credential.ts'
import { createRateLimiter, type RateLimiter } from '../src/auth/rate-limiter.ts'
import { createRecoveryMailer, type RecoveryMailer } from '../src/auth/recovery-mail.ts'
import { deriveKey } from '../src/auth/secrets.ts'
import { resolveServiceSecret } from '../src/auth/service-secret.ts'
import { pgliteDataDir } from '../src/config.ts'
import { createSessionStore, type SessionStore } from '../src/auth/sessions.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: the route reads its own credentials (POST /login, POST /refresh). */
    authenticate?: boolean
    /** Requests are limited per IP (LOGIN_RATE_LIMIT a minute). */
    loginEndpoint?: boolean
  }
}

export interface AuthService {
  /** The clock of every expiry decision; tests replace `now`. */
  clock: Clock
  passwords: PasswordChecker
  sessions: SessionStore
  apiKeys: ApiKeys
  links: LoginLinks
  mailer: RecoveryMailer
  /** Failed password checks and recovery emails, per account and per IP (LOGIN_RATE_LIMIT per 15 minutes). */
  failures: RateLimiter
  resolveCaller: (request: FastifyRequest) => Promise<Caller>
}

const MINUTE_MS = 60_000

async function authPlugin (app: FastifyInstance): Promise<void> {
  const { config } = app
  await app.db.syncModels([CREDENTIAL_MODEL])
  const warn = (msg: string): void => app.log.warn(msg)
  const secret = await resolveServiceSecret(app.db, { explicit: config.secret, dataDir: pgliteDataDir(config.databaseUrl), log: warn })
  await app.register(fastifyJwt, { secret: deriveKey(secret, 'jwt').toString('base64url') })
  const clock = systemClock()
  const codec: JwtCodec = {
    sign: (payload, ttlSeconds) => app.jwt.sign(payload, { expiresIn: ttlSeconds, clockTimestamp: clock.now() }),
    verify: (token) => app.jwt.verify(token, { clockTimestamp: clock.now() })
  }
  const failures = createRateLimiter(config.loginRateLimit, 15 * MINUTE_MS, clock)
  const loginAttempts = createRateLimiter(config.loginRateLimit, MINUTE_MS, clock)
  const passwords = createPasswordChecker({ engine: app.system, secret, clock, failures })
  const apiKeys = createApiKeys(app.system, secret, warn)
  const sessions = createSessionStore({ engine: app.system, clock, apiKeys, tokenTtlSeconds: config.tokenTtlSeconds, refreshTokenTtlSeconds: config.refreshTokenTtlSeconds })
  const links = createLoginLinks(app.system, codec, secret, config.jwtTtlSeconds)
  const mailer = createRecoveryMailer(config, warn)

  async function resolveCaller (request: FastifyRequest): Promise<Caller> {
    const presented = presentedCredential(request.headers, request.query)
    switch (presented?.kind) {
      case undefined: return ANONYMOUS
      case 'basic': return await passwords.callerFor(presented.email, presented.password, request.ip)
      case 'bearer': return await sessions.callerForToken(presented.token)
      case 'apikey': return await sessions.callerForApiKey(presented.key)
      case 'jwt': return callerFromUser(await links.resolve(presented.jwt, 'login'), 'jwt')
    }
  }

  app.decorate('auth', { clock, passwords, sessions, apiKeys, links, mailer, failures, resolveCaller })
  app.decorateRequest('caller', null as unknown as Caller)
  app.addHook('onRequest', async (request) => {
    const route = request.routeOptions.config
    if (route?.loginEndpoint) {
      loginAttempts.check(`ip:${request.ip}`)
      loginAttempts.record(`ip:${request.ip}`)
    }
    request.caller = route?.authenticate === false ? ANONYMOUS : await resolveCaller(request)
  })
  app.addHook('onClose', async () => { mailer.close() })
}

export default fp(authPlugin, { name: 'auth', dependencies: ['db'] })
