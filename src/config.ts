// The service configuration, read from environment variables checked against their schema
// (src/config-schema.ts; documented in the README's configuration table).
import { join, resolve } from 'node:path'
import { embeddedDatabaseUrl } from './embedded/data-dir.ts'
import { availableParallelism } from 'node:os'
import proxyAddr from 'proxy-addr'
import { ConfigError, readEnv } from './read-env.ts'
import { readOAuthSettings, type OAuthSettings } from './oauth/oauth-settings.ts'

export { ConfigError } from './read-env.ts'

export interface Config {
  port: number
  host: string
  /**
   * postgres://... -> a PostgreSQL server; mongodb://... -> MongoDB; when DATABASE_URL is unset, the embedded server's
   * socket URL.
   */
  databaseUrl: string
  /** DATABASE_URL is unset: Quire runs the embedded PostgreSQL server of `dataDir` (src/embedded/). */
  embedded: boolean
  /** DATA_DIR, absolute: the embedded server's cluster (`postgres/`) and the service secret's file. */
  dataDir: string
  modelsDir: string
  defaultPageSize: number
  maxPageSize: number
  /** Lists count exactly while the collection holds at most this many documents. */
  exactCountLimit: number
  /** How long an exact list count is reused (writes in this process drop it at once); 0: never. */
  countCacheMs: number
  credentialCacheMs: number
  statementTimeoutMs: number
  /** PostgreSQL connections per process. */
  pgPoolSize: number
  /** `quire serve` processes on one port (src/cluster/); each has its own pool and caches. */
  workers: number
  /**
   * PostgreSQL: the quick lane's time limit for reads that usually take little time
   * (src/storage/postgres/quick-lane.ts); 0: no quick lane.
   */
  quickStatementMs: number
  /**
   * Expensive statements (lists, counts, aggregations, bulk writes) at once on PostgreSQL; 0: half the pool, at most
   * this host's cores but one, per worker.
   */
  expensiveQuerySlots: number
  /** Expensive statements at once for one client address on PostgreSQL; 0: all slots but one. */
  expensiveQuerySlotsPerClient: number
  /**
   * Requests one client runs at once while other clients are active (src/runtime/fair-share.ts); 0: the process's
   * cores divided among the clients active.
   */
  requestsPerClient: number
  bodyLimitBytes: number
  tokenTtlSeconds: number
  refreshTokenTtlSeconds: number
  jwtTtlSeconds: number
  /** QUIRE_SECRET: signs JWTs, seals API keys; when unset, one kept with the data (src/auth/service-secret.ts). */
  secret?: string
  /**
   * QUIRE_ADMIN_EMAIL and QUIRE_ADMIN_PASSWORD: the first admin, created at start while no user exists
   * (plugins/first-admin.ts).
   */
  firstAdmin?: { email: string; password: string }
  bcryptRounds: number
  logLevel: string
  smtpUrl?: string
  mailFrom: string
  passwordRecoveryUrl: string
  /** A text file for the recovery email (see docs/auth.md); a built-in text when unset. */
  recoveryEmailTemplate?: string
  loginRateLimit: number
  /** How long in-flight requests may take to finish when the process is told to stop. */
  shutdownTimeoutMs: number
  /** Connections held at once, more are closed as they arrive; 0: automatic (src/connection-limit.ts). */
  maxConnections: number
  /** How long a client has to send a whole request (headers and body) before a 408; 0: no limit. */
  requestTimeoutMs: number
  /** Requests get 503 OVERLOADED while the event loop lags more than this; 0: never. */
  maxEventLoopDelayMs: number
  /** Serve GET /openapi.json and the API reference at /docs. */
  apiDocsEnabled: boolean
  /** Serve Prometheus metrics at GET /metrics. */
  metricsEnabled: boolean
  /** When set, GET /metrics needs `Authorization: Bearer <metricsToken>`. */
  metricsToken?: string
  /** Fastify's trustProxy: which proxies' X-Forwarded-* headers are believed (false: none). */
  trustProxy: boolean | string[]
  /** Origins allowed by CORS (['*']: any); empty: no CORS headers. */
  corsOrigins: string[]
  /** How the server logs: JSON lines, pino-pretty, or pretty on a terminal only. */
  logFormat: 'auto' | 'json' | 'pretty'
  /** The most rows a CSV export gives a caller who is not an admin (GET /csv/{model}). */
  csvMaxRows: number
  /** Change feeds: how long the change log keeps a change for clients that resume (Last-Event-ID). */
  changesRetentionSeconds: number
  /** Change feeds: at most this many changes are kept (the newest). */
  changesRetentionEvents: number
  /** Change feeds: what may wait for one slow client (bytes, about) before its stream is closed. */
  changesQueueBytes: number
  /** Change feeds: a client that accepts nothing this long while changes wait for it is closed. */
  changesStallSeconds: number
  /** Change feeds: open streams (SSE and WebSocket subscriptions) per process, and per client address. */
  changesMaxStreams: number
  changesMaxStreamsPerClient: number
  /** MCP: tools that create, update and delete documents are offered (to callers with those rights). */
  mcpWrites: boolean
  /** JXP_COMPAT: answer as JXP does where Quire's default differs on purpose but no safety is at stake. */
  jxpCompat: boolean
  /** The read cache (src/cache/): on or off, entry lifetime, bound. */
  cacheEnabled: boolean
  cacheTtlSeconds: number
  cacheMaxEntries: number
  /** MCP: appended to the server instructions; Markdown files appended to the guide resource. */
  mcpInstructionsAppend?: string
  mcpGuideFiles: string[]
  /**
   * PUBLIC_URL: the address clients reach Quire at (the OpenAPI document's server, sign-in providers' redirect URIs);
   * undefined: relative.
   */
  publicUrl?: string
  /** Sign-in with OAuth 2 / OpenID Connect providers (src/oauth/). */
  oauth: OAuthSettings
}

/** A non-negative integer environment variable, or `fallback` when unset or empty (the bench's knobs). */
export function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got ${raw}`)
  return value
}

/** WORKERS when unset: every core in production, else one process. */
function defaultWorkers(env: NodeJS.ProcessEnv): number {
  return env.NODE_ENV === 'production' ? availableParallelism() : 1
}

/** A comma-separated list, trimmed; empty when unset. */
function listFrom(text: string | undefined): string[] {
  return text === undefined ? [] : text.split(',').map(item => item.trim())
}

/** TRUST_PROXY as Fastify takes it: a boolean, or addresses and ranges (checked here). */
function trustProxyFrom(text: string | undefined): boolean | string[] {
  if (text === undefined || text === 'false') return false
  if (text === 'true') return true
  if (/^\d+$/.test(text))
    throw new ConfigError(
      "TRUST_PROXY: a hop count cannot tell a proxy from a client: list the proxies' addresses or ranges"
    )
  const list = listFrom(text)
  try {
    proxyAddr.compile(list)
  } catch (err) {
    throw new ConfigError(`TRUST_PROXY: ${(err as Error).message}`)
  }
  return list
}

/** QUIRE_ADMIN_EMAIL goes with QUIRE_ADMIN_PASSWORD (the password alone also serves `quire admin create`). */
function firstAdminFrom(email: string | undefined, password: string | undefined): Config['firstAdmin'] {
  if (email === undefined) return undefined
  if (password === undefined)
    throw new ConfigError("QUIRE_ADMIN_EMAIL needs QUIRE_ADMIN_PASSWORD: the first admin's password")
  return { email, password }
}

/** The configuration from `env`; throws a ConfigError (one line naming the variable) on a mistake. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const retired = Object.keys(env).find(name => name.startsWith('PGLITE_'))
  if (retired !== undefined) {
    throw new ConfigError(
      `${retired} is no longer read: the embedded database is a PostgreSQL server now (DATABASE_URL ` +
        `unset), with none of PGlite's settings; remove it`
    )
  }
  if (env.DATABASE_URL?.startsWith('pglite://') === true) {
    throw new ConfigError(
      'DATABASE_URL: pglite:// is no longer supported: unset DATABASE_URL to use the embedded PostgreSQL ' +
        "server in DATA_DIR (a PGlite directory's data moves with `quire export` of the previous version and " +
        '`quire import`; see CHANGELOG.md)'
    )
  }
  const v = readEnv(env)
  const dataDir = resolve(v.DATA_DIR ?? 'data')
  return {
    port: v.PORT,
    host: v.HOST,
    databaseUrl: v.DATABASE_URL ?? embeddedDatabaseUrl(dataDir),
    embedded: v.DATABASE_URL === undefined,
    dataDir,
    modelsDir: v.MODELS_DIR ?? join(process.cwd(), 'models'),
    defaultPageSize: v.DEFAULT_PAGE_SIZE,
    maxPageSize: v.MAX_PAGE_SIZE,
    exactCountLimit: v.EXACT_COUNT_LIMIT,
    countCacheMs: v.COUNT_CACHE_MS,
    credentialCacheMs: v.CREDENTIAL_CACHE_MS,
    statementTimeoutMs: v.STATEMENT_TIMEOUT_MS,
    pgPoolSize: v.PG_POOL_SIZE,
    workers: v.WORKERS ?? defaultWorkers(env),
    quickStatementMs: v.QUICK_STATEMENT_MS,
    expensiveQuerySlots: v.EXPENSIVE_QUERY_SLOTS,
    expensiveQuerySlotsPerClient: v.EXPENSIVE_QUERY_SLOTS_PER_CLIENT,
    requestsPerClient: v.REQUESTS_PER_CLIENT,
    bodyLimitBytes: v.BODY_LIMIT_BYTES,
    tokenTtlSeconds: v.TOKEN_TTL_SECONDS,
    refreshTokenTtlSeconds: v.REFRESH_TOKEN_TTL_SECONDS,
    jwtTtlSeconds: v.JWT_TTL_SECONDS,
    secret: v.QUIRE_SECRET,
    firstAdmin: firstAdminFrom(v.QUIRE_ADMIN_EMAIL, v.QUIRE_ADMIN_PASSWORD),
    bcryptRounds: v.BCRYPT_ROUNDS,
    logLevel: v.LOG_LEVEL,
    smtpUrl: v.SMTP_URL,
    mailFrom: v.MAIL_FROM,
    passwordRecoveryUrl: v.PASSWORD_RECOVERY_URL,
    recoveryEmailTemplate: v.RECOVERY_EMAIL_TEMPLATE,
    loginRateLimit: v.LOGIN_RATE_LIMIT,
    shutdownTimeoutMs: v.SHUTDOWN_TIMEOUT_MS,
    maxConnections: v.MAX_CONNECTIONS,
    requestTimeoutMs: v.REQUEST_TIMEOUT_MS,
    maxEventLoopDelayMs: v.MAX_EVENT_LOOP_DELAY_MS,
    apiDocsEnabled: v.API_DOCS_ENABLED,
    metricsEnabled: v.METRICS_ENABLED,
    metricsToken: v.METRICS_TOKEN,
    trustProxy: trustProxyFrom(v.TRUST_PROXY),
    corsOrigins: listFrom(v.CORS_ORIGINS),
    logFormat: v.LOG_FORMAT,
    csvMaxRows: v.CSV_MAX_ROWS,
    changesRetentionSeconds: v.CHANGES_RETENTION_SECONDS,
    changesRetentionEvents: v.CHANGES_RETENTION_EVENTS,
    changesQueueBytes: v.CHANGES_QUEUE_BYTES,
    changesStallSeconds: v.CHANGES_STALL_SECONDS,
    changesMaxStreams: v.CHANGES_MAX_STREAMS,
    changesMaxStreamsPerClient: v.CHANGES_MAX_STREAMS_PER_CLIENT,
    mcpWrites: v.MCP_WRITES,
    jxpCompat: v.JXP_COMPAT,
    cacheEnabled: v.CACHE_ENABLED,
    cacheTtlSeconds: v.CACHE_TTL,
    cacheMaxEntries: v.CACHE_MAX_ENTRIES,
    mcpInstructionsAppend: v.MCP_INSTRUCTIONS_APPEND,
    mcpGuideFiles: listFrom(v.MCP_GUIDE_FILES),
    publicUrl: v.PUBLIC_URL,
    oauth: readOAuthSettings(env, {
      providers: v.OAUTH_PROVIDERS,
      successUrl: v.OAUTH_SUCCESS_URL,
      failureUrl: v.OAUTH_FAILURE_URL,
      publicUrl: v.PUBLIC_URL
    })
  }
}
