// Decorates the instance with `credentials` (passwords, sessions, API keys,
// login links, the recovery mailer, rate limits, the authentication step; `auth`
// is @fastify/auth's, which composes that step) and every
// request with `caller`, resolved from the one credential presented (see
// credential-strategies.ts). Presented credentials that fail are a 401, never a
// silent fall-back to anonymous.
import fp from 'fastify-plugin'
import fastifyJwt from '@fastify/jwt'
import type { FastifyInstance } from 'fastify'
import { createApiKeys, type ApiKeys } from '../src/auth/credentials/api-keys.ts'
import { systemClock, type Clock } from '../src/auth/clock.ts'
import { CREDENTIAL_MODEL } from '../src/auth/credentials/credential-model.ts'
import { createLoginLinks, type JwtCodec, type LoginLinks } from '../src/auth/credentials/login-links.ts'
import { createPasswordChecker, type PasswordChecker } from '../src/auth/password-checker.ts'
import { createLoginThrottle, type LoginThrottle } from '../src/auth/throttle/login-throttle.ts'
import { createRecoveryMailer, type RecoveryMailer } from '../src/auth/recovery-mail.ts'
import { deriveKey } from '../src/auth/secrets.ts'
import { resolveServiceSecret, secretDataDir } from '../src/auth/service-secret.ts'
import { createSessionStore, type SessionStore } from '../src/auth/credentials/sessions.ts'
import { createCredentialCache, type CredentialCache } from '../src/auth/credentials/credential-cache.ts'
import { listenForCredentialChanges, openNoticeConnection } from '../src/storage/postgres/credential-notices.ts'
import { addAuthentication, type Authenticate } from './credential-strategies.ts'

export interface AuthService {
  /** The clock of every expiry decision; tests replace `now`. */
  clock: Clock
  passwords: PasswordChecker
  sessions: SessionStore
  apiKeys: ApiKeys
  links: LoginLinks
  mailer: RecoveryMailer
  /** Failed password checks per account-and-address and per address; recovery emails per account. */
  throttle: LoginThrottle
  /** The authentication step (an onRequest handler): sets request.caller, or fails with a 401. */
  authenticate: Authenticate
  /** A 256-bit key for one purpose, derived from the service secret (src/oauth seals its pending sign-ins with one). */
  keyFor: (purpose: string) => Buffer
}

/**
 * Empties `cache` after every write to users or credentials: in this process, and on PostgreSQL in
 * every process sharing the database (a connection of its own listens and announces).
 */
/** Credentials remembered at most (the oldest goes first). */
const CREDENTIAL_CACHE_ENTRIES = 10_000

async function clearOnCredentialWrites(app: FastifyInstance, cache: CredentialCache): Promise<void> {
  if (app.db.kind !== 'postgres' || app.config.credentialCacheMs <= 0) {
    app.credentialWrites.announce = async () => {
      cache.clear()
    }
    return
  }
  const connection = openNoticeConnection(app.config.databaseUrl, app.config.statementTimeoutMs)
  const notices = await listenForCredentialChanges(connection, cache.clear)
  app.credentialWrites.announce = async () => {
    cache.clear()
    await notices.announce()
  }
  app.addHook('onClose', async () => {
    await notices.close()
    await connection.client.close()
  })
}

async function authPlugin(app: FastifyInstance): Promise<void> {
  const { config } = app
  await app.db.syncModels([CREDENTIAL_MODEL])
  const warn = (msg: string): void => app.log.warn(msg)
  const secret = await resolveServiceSecret(app.db, {
    explicit: config.secret,
    dataDir: secretDataDir(config),
    log: warn
  })
  await app.register(fastifyJwt, { secret: deriveKey(secret, 'jwt').toString('base64url') })
  const clock = systemClock()
  const codec: JwtCodec = {
    sign: (payload, ttlSeconds) => app.jwt.sign(payload, { expiresIn: ttlSeconds, clockTimestamp: clock.now() }),
    verify: token => app.jwt.verify(token, { clockTimestamp: clock.now() })
  }
  const throttle = createLoginThrottle(config.loginRateLimit, clock)
  const cache = createCredentialCache({
    maxEntries: CREDENTIAL_CACHE_ENTRIES,
    maxAgeMs: config.credentialCacheMs,
    clock
  })
  await clearOnCredentialWrites(app, cache)
  const passwords = createPasswordChecker({ engine: app.system, secret, throttle, cache })
  const apiKeys = createApiKeys(app.system, secret, warn)
  const sessions = createSessionStore({
    engine: app.system,
    clock,
    apiKeys,
    cache,
    tokenTtlSeconds: config.tokenTtlSeconds,
    refreshTokenTtlSeconds: config.refreshTokenTtlSeconds
  })
  const links = createLoginLinks(app.system, codec, secret, config.jwtTtlSeconds)
  const mailer = createRecoveryMailer(config, warn)

  const authenticate = await addAuthentication(app, { passwords, sessions, links })

  app.decorate('credentials', {
    clock,
    passwords,
    sessions,
    apiKeys,
    links,
    mailer,
    throttle,
    authenticate,
    keyFor: (purpose: string) => deriveKey(secret, purpose)
  })
  app.addHook('onClose', async () => {
    mailer.close()
  })
}

export default fp(authPlugin, { name: 'auth', dependencies: ['db'] })
