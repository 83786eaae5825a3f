// The environment variables Quire reads: each one's type, limits, default and meaning, as one
// TypeBox schema. The README's configuration table lists the same variables (a test checks it).
import { Type, type Static, type TInteger, type TString, type TUnsafe, type TBoolean } from '@sinclair/typebox'

/** A whole number from `minimum` (and up to `maximum`), with its default and meaning. */
function whole(minimum: number, fallback: number, description: string, maximum?: number): TInteger {
  return Type.Integer({ minimum, ...(maximum === undefined ? {} : { maximum }), default: fallback, description })
}

/** A text variable; `hint` says what a value must look like when `pattern` rejects it. */
function text(description: string, options: { default?: string; pattern?: string; hint?: string } = {}): TString {
  return Type.String({ minLength: 1, description, ...options })
}

/** true or false, with its default and meaning. */
function flag(fallback: boolean, description: string): TBoolean {
  return Type.Boolean({ default: fallback, description })
}

/** One of a few words, with its default and meaning. */
function oneOf<const T extends string>(values: readonly T[], fallback: T, description: string): TUnsafe<T> {
  return Type.Unsafe<T>({ type: 'string', enum: values, default: fallback, description })
}

const DATABASE_SCHEMES = 'postgres://, postgresql://, mongodb:// or mongodb+srv://'

export const EnvSchema = Type.Object({
  PORT: whole(0, 3000, 'HTTP port', 65535),
  HOST: text('listen address', { default: '0.0.0.0' }),
  DATABASE_URL: Type.Optional(
    text(
      'the storage: `postgres://user:pass@host/db` (a Unix socket: ' +
        '`postgres://user@localhost/db?host=/socket/dir`), `mongodb://...`; unset: the embedded PostgreSQL ' +
        'server in `DATA_DIR`',
      { pattern: '^(postgres|postgresql|mongodb|mongodb\\+srv)://', hint: `must start with ${DATABASE_SCHEMES}` }
    )
  ),
  DATA_DIR: Type.Optional(
    text(
      "the embedded PostgreSQL server's data directory when `DATABASE_URL` is unset (default `./data`; " +
        'the database is in its `postgres/` folder)'
    )
  ),
  MODELS_DIR: Type.Optional(text('where model files (`*.json`) are loaded from (default `./models`)')),
  DEFAULT_PAGE_SIZE: whole(1, 100, 'list page size when `limit` is not given (at most `MAX_PAGE_SIZE`)'),
  MAX_PAGE_SIZE: whole(1, 1000, 'the largest `limit`; larger ones are capped (`limit_capped: true`)'),
  EXACT_COUNT_LIMIT: whole(
    0,
    100_000,
    'lists count exactly up to this collection size; above it `count` is `-1` unless a list asks ' +
      '`count=exact`, `planned` or `estimated`'
  ),
  COUNT_CACHE_MS: whole(
    0,
    2000,
    'an exact list count is reused this long for the same model, filter and search; `0` turns it off'
  ),
  CREDENTIAL_CACHE_MS: whole(
    0,
    60_000,
    'an API key, bearer token or Basic pair is remembered this long at most (no database read, and no ' +
      'bcrypt comparison, per request); any change to users or credentials empties the cache of every ' +
      'process at once; `0` turns it off'
  ),
  STATEMENT_TIMEOUT_MS: whole(
    0,
    5000,
    "the longest a request's statement runs (`QUERY_TIMEOUT`) or waits for its turn (503 `UNAVAILABLE`), " +
      'on every engine (`0`: none)'
  ),
  BODY_LIMIT_BYTES: whole(1, 1_048_576, 'largest request body'),
  PG_POOL_SIZE: whole(1, 10, 'PostgreSQL connections per process'),
  WORKERS: Type.Optional(
    whole(
      1,
      1,
      '`quire serve` processes sharing the port (node:cluster); unset: the number of cores with ' +
        '`NODE_ENV=production`, else 1',
      256
    )
  ),
  QUICK_STATEMENT_MS: whole(
    0,
    50,
    'PostgreSQL: reads that may scan (lists, counts, aggregations) first run pipelined on a fifth of the ' +
      'pool, each cut at this many ms and then run as expensive statements (`0`: no quick lane)'
  ),
  EXPENSIVE_QUERY_SLOTS: whole(
    0,
    0,
    'PostgreSQL: statements that may scan (lists, counts, aggregations, bulk writes) running at once ' +
      "(`0`: half the pool, at most this host's cores but one, per worker; at least 1)"
  ),
  EXPENSIVE_QUERY_SLOTS_PER_CLIENT: whole(
    0,
    0,
    'PostgreSQL: of those, how many one client address may hold (`0`: all slots but one)'
  ),
  REQUESTS_PER_CLIENT: whole(
    0,
    0,
    'requests one client (its address, IPv6 by its /64) runs at once in a process while other clients are ' +
      "active; its others wait their turn (`0`: the process's cores divided among the clients active, at least 1)"
  ),
  QUIRE_SECRET: Type.Optional(
    text('signs JWTs and keys credential digests: set it in production (and for several processes)')
  ),
  QUIRE_ADMIN_EMAIL: Type.Optional(
    text(
      'with `QUIRE_ADMIN_PASSWORD`: `quire serve` creates this first admin at start while no user exists, ' +
        'so that `POST /setup` is never open'
    )
  ),
  QUIRE_ADMIN_PASSWORD: Type.Optional(
    text(
      "the first admin's password with `QUIRE_ADMIN_EMAIL`; the password for `quire admin create` when " +
        '`--password` is not given (keeps it out of the shell history)'
    )
  ),
  BCRYPT_ROUNDS: whole(4, 10, 'bcrypt cost of stored passwords', 31),
  TOKEN_TTL_SECONDS: whole(1, 86_400, 'bearer token lifetime (24 h)'),
  REFRESH_TOKEN_TTL_SECONDS: whole(1, 2_592_000, 'refresh token lifetime (30 days)'),
  JWT_TTL_SECONDS: whole(1, 3600, 'lifetime of login-link and recovery JWTs'),
  LOGIN_RATE_LIMIT: whole(0, 10, 'login attempts per minute per IP and per account (`0`: no limit)'),
  CSV_MAX_ROWS: whole(
    1,
    10_000,
    'the most rows a CSV export (`GET /csv/{model}`) gives a caller who is not an admin; a larger one is ' +
      'a 400 before any row is sent'
  ),
  SMTP_URL: Type.Optional(
    text(
      'the mail server for recovery mails, e.g. `smtp://user:pass@mail.example.com:587` (unset: password ' +
        'recovery by email is off)',
      { pattern: '^smtps?://', hint: 'must start with smtp:// or smtps://' }
    )
  ),
  MAIL_FROM: text('sender of recovery mails', { default: 'quire@localhost' }),
  PASSWORD_RECOVERY_URL: text('link in recovery mails; `{jwt}` is replaced', {
    default: 'http://localhost:3000/reset-password?jwt={jwt}',
    pattern: '^https?://',
    hint: 'must start with http:// or https://'
  }),
  RECOVERY_EMAIL_TEMPLATE: Type.Optional(
    text('a text file for the recovery email (see docs/auth.md); a built-in text when unset')
  ),
  SHUTDOWN_TIMEOUT_MS: whole(
    0,
    10_000,
    'on SIGTERM or SIGINT, in-flight requests have this long to finish before the process exits anyway'
  ),
  MAX_CONNECTIONS: whole(
    0,
    0,
    'connections the server holds at once; more are closed as they arrive (`0`: the open-files limit less ' +
      '256, so that a flood of idle connections cannot leave the process unable to open a file)'
  ),
  REQUEST_TIMEOUT_MS: whole(
    0,
    30_000,
    'a client has this long to send a whole request, headers and body (checked every tenth of it); a ' +
      'slower one is cut off, so that slow senders cannot hold connections and buffered bodies (`0`: no ' +
      'limit)'
  ),
  MAX_EVENT_LOOP_DELAY_MS: whole(
    0,
    1000,
    'requests are shed with `503 OVERLOADED` while the event loop lags more than this (`0`: never)'
  ),
  TRUST_PROXY: Type.Optional(
    text(
      'the proxies in front of Quire whose `X-Forwarded-For` is believed: `true` (any: only when every ' +
        'connection comes through them), or their addresses and CIDR ranges (`10.0.0.0/8,loopback`); unset: ' +
        'none',
      {
        pattern: '^[^\\s,]+(\\s*,\\s*[^\\s,]+)*$',
        hint: 'must be true, false, or a comma-separated list of addresses and ranges'
      }
    )
  ),
  CORS_ORIGINS: Type.Optional(
    text(
      'browser origins allowed to call the API from another site ' +
        '(`https://app.example.com,https://admin.example.com`, or `*` for any); unset: none',
      {
        pattern: '^(\\*|https?://[^\\s,/]+(\\s*,\\s*https?://[^\\s,/]+)*)$',
        hint: 'must be * or a comma-separated list of origins such as https://app.example.com'
      }
    )
  ),
  API_DOCS_ENABLED: flag(
    true,
    'serves the OpenAPI description at `GET /openapi.json` and the API reference at `/docs` (they name ' +
      'every model and field)'
  ),
  METRICS_ENABLED: flag(false, '`true` serves Prometheus metrics at `GET /metrics`'),
  METRICS_TOKEN: Type.Optional(
    text('when set, `GET /metrics` needs `Authorization: Bearer <token>` (at least 16 characters)', {
      pattern: '^.{16,}$',
      hint: 'must be at least 16 characters long'
    })
  ),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info', 'pino log level'),
  LOG_FORMAT: oneOf(
    ['auto', 'json', 'pretty'],
    'auto',
    '`json` (one object per line, for log collectors) or `pretty` (readable, pino-pretty); `auto`: pretty ' +
      'when the output is a terminal'
  ),
  CHANGES_RETENTION_SECONDS: whole(
    1,
    3600,
    'change feeds: a change stays in the change log this long for clients that resume with `Last-Event-ID`'
  ),
  CHANGES_RETENTION_EVENTS: whole(1, 100_000, 'change feeds: at most this many changes are kept (the newest)'),
  CHANGES_QUEUE_BYTES: whole(
    1024,
    1_048_576,
    'change feeds: what may wait in memory for one client; a client behind that reads the change log at ' +
      'its own pace instead'
  ),
  CHANGES_STALL_SECONDS: whole(
    1,
    30,
    'change feeds: a client that accepts nothing this long while changes wait for it is closed (`SLOW_CONSUMER`)'
  ),
  CHANGES_MAX_STREAMS: whole(1, 1000, 'change feeds: open streams (SSE and WebSocket subscriptions) per process'),
  CHANGES_MAX_STREAMS_PER_CLIENT: whole(
    1,
    20,
    'change feeds: open streams per client (its address, IPv6 by its /64; so that 50 clients, not 10, are ' +
      'needed to fill CHANGES_MAX_STREAMS)'
  ),
  MCP_WRITES: flag(
    false,
    'MCP: `true` offers the tools that create, update and delete documents (to callers with those rights)'
  ),
  JXP_COMPAT: flag(
    false,
    '`true` for a deployment replacing a JXP server: Quire answers as JXP does where its own default ' +
      'differs on purpose but no safety is at stake (403 for missing or expired credentials, unknown body ' +
      "fields dropped and named in `X-Quire-Dropped-Fields`, JXP's `/setup` answers, `showDeleted` for " +
      'readers, MCP needs credentials); see docs/jxp-compatibility.md'
  ),
  CACHE_ENABLED: flag(
    false,
    "`true` caches list and single-document reads (`GET /api/{model}`, `/api/{model}/{id}`) per caller's " +
      'view, dropped on every write of any process; `jxp-cache: hit|miss` header, admin-only `GET ' +
      '/cache/stats` and `/cache/clear`'
  ),
  CACHE_TTL: whole(1, 60, 'seconds a cached read is kept at most (`CACHE_ENABLED`)'),
  CACHE_MAX_ENTRIES: whole(1, 10_000, 'cached reads kept at most per process (the least recently used go first)'),
  MCP_INSTRUCTIONS_APPEND: Type.Optional(text('MCP: text added to the server instructions sent to clients')),
  MCP_GUIDE_FILES: Type.Optional(text('MCP: comma-separated Markdown files appended to the `jxp://guide` resource')),
  PUBLIC_URL: Type.Optional(
    text(
      'the address clients reach Quire at, e.g. `https://quire.example.com`: the server named in ' +
        "`/openapi.json` (unset: `/`), and the base of sign-in providers' redirect URI " +
        '`PUBLIC_URL/login/oauth/callback/<name>`',
      {
        pattern: '^https?://[^\\s/]+(/[^\\s]*[^\\s/])?$',
        hint: 'must be an http:// or https:// URL without a trailing slash'
      }
    )
  ),
  OAUTH_PROVIDERS: Type.Optional(
    text(
      'sign-in providers (OAuth 2 / OpenID Connect), e.g. `google,work`; each is configured by its ' +
        '`OAUTH_<NAME>_*` variables (see docs/auth.md)',
      {
        pattern: '^[a-z][a-z0-9]{0,31}(\\s*,\\s*[a-z][a-z0-9]{0,31})*$',
        hint: 'must be a comma-separated list of names of lower-case letters and digits'
      }
    )
  ),
  OAUTH_SUCCESS_URL: Type.Optional(
    text(
      'where the browser goes after a sign-in with a provider, with `?token=` (a one-time sign-in token ' +
        'for `POST /login/oauth/token`)',
      { pattern: '^https?://', hint: 'must start with http:// or https://' }
    )
  ),
  OAUTH_FAILURE_URL: Type.Optional(
    text(
      'where the browser goes after a failed sign-in, with `?error=<code>&provider=<name>` (unset: ' +
        '`OAUTH_SUCCESS_URL`)',
      { pattern: '^https?://', hint: 'must start with http:// or https://' }
    )
  )
})

export type Env = Static<typeof EnvSchema>

export type EnvName = keyof Env

/** Names people write for a Quire variable: rejected with the right name rather than ignored. */
export const MISSPELLINGS: Record<string, EnvName> = {
  DATABASE_URI: 'DATABASE_URL',
  DB_URL: 'DATABASE_URL',
  DATA_DIRECTORY: 'DATA_DIR',
  MODEL_DIR: 'MODELS_DIR',
  MODELS_DIRECTORY: 'MODELS_DIR',
  PG_POOL: 'PG_POOL_SIZE',
  BODY_LIMIT: 'BODY_LIMIT_BYTES',
  STATEMENT_TIMEOUT: 'STATEMENT_TIMEOUT_MS'
}
