// Reads the service configuration from environment variables, with defaults.
// Every variable is documented in the README's configuration table.
import { join } from 'node:path'

export interface Config {
  port: number
  host: string
  /** Unset or pglite://PATH -> embedded PGlite; postgres://... -> server; mongodb://... -> MongoDB. */
  databaseUrl: string
  modelsDir: string
  defaultPageSize: number
  maxPageSize: number
  /** Lists count exactly while the collection holds at most this many documents. */
  exactCountLimit: number
  /** How long an exact list count is reused (writes in this process drop it at once); 0: never. */
  countCacheMs: number
  statementTimeoutMs: number
  bodyLimitBytes: number
  tokenTtlSeconds: number
  refreshTokenTtlSeconds: number
  jwtTtlSeconds: number
  /** QUIRE_SECRET: signs JWTs, seals API keys; when unset, one kept with the data (src/auth/service-secret.ts). */
  secret?: string
  bcryptRounds: number
  logLevel: string
  smtpUrl?: string
  mailFrom: string
  passwordRecoveryUrl: string
  /** A text file for the recovery email (see docs/auth.md); a built-in text when unset. */
  recoveryEmailTemplate?: string
  loginRateLimit: number
}

/** A non-negative integer environment variable, or `fallback` when unset or empty. */
export function intFrom (env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got ${raw}`)
  return value
}

/** The PGlite URL for a data directory. */
export function pgliteUrlFor (dataDir: string): string {
  return `pglite://${dataDir}`
}

/** The data directory of a pglite://PATH URL; undefined for pglite://memory and other engines. */
export function pgliteDataDir (databaseUrl: string): string | undefined {
  const path = databaseUrl.startsWith('pglite://') ? databaseUrl.slice('pglite://'.length) : ''
  return path && path !== 'memory' ? path : undefined
}

export function loadConfig (env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: intFrom(env, 'PORT', 3000),
    host: env.HOST ?? '0.0.0.0',
    databaseUrl: env.DATABASE_URL || pgliteUrlFor(env.DATA_DIR || join(process.cwd(), 'data')),
    modelsDir: env.MODELS_DIR || join(process.cwd(), 'models'),
    defaultPageSize: intFrom(env, 'DEFAULT_PAGE_SIZE', 100),
    maxPageSize: intFrom(env, 'MAX_PAGE_SIZE', 1000),
    exactCountLimit: intFrom(env, 'EXACT_COUNT_LIMIT', 100_000),
    countCacheMs: intFrom(env, 'COUNT_CACHE_MS', 2000),
    statementTimeoutMs: intFrom(env, 'STATEMENT_TIMEOUT_MS', 5000),
    bodyLimitBytes: intFrom(env, 'BODY_LIMIT_BYTES', 1_048_576),
    tokenTtlSeconds: intFrom(env, 'TOKEN_TTL_SECONDS', 24 * 3600),
    refreshTokenTtlSeconds: intFrom(env, 'REFRESH_TOKEN_TTL_SECONDS', 30 * 24 * 3600),
    jwtTtlSeconds: intFrom(env, 'JWT_TTL_SECONDS', 3600),
    secret: env.QUIRE_SECRET || undefined,
    bcryptRounds: intFrom(env, 'BCRYPT_ROUNDS', 10),
    logLevel: env.LOG_LEVEL || 'info',
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM || 'quire@localhost',
    passwordRecoveryUrl: env.PASSWORD_RECOVERY_URL || 'http://localhost:3000/reset-password?jwt={jwt}',
    recoveryEmailTemplate: env.RECOVERY_EMAIL_TEMPLATE || undefined,
    loginRateLimit: intFrom(env, 'LOGIN_RATE_LIMIT', 10)
  }
}
