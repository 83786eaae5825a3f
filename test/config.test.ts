// Configuration checked at start: defaults, one clear line naming the variable at fault (bad
// values, unknown QUIRE_ names, near misses), the README's table in step with the schema, and
// the command line's one-line refusal of a bad or unreachable DATABASE_URL.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { ConfigError, loadConfig } from '../src/config.ts'
import { EnvSchema } from '../src/config-schema.ts'
import { serverAddresses } from '../src/storage/probe-database.ts'
import { REPO_ROOT, runCli } from './helpers/run-cli.ts'
import { freePort } from '../src/free-port.ts'

t.test('defaults', async t => {
  const config = loadConfig({})
  t.match(config, {
    port: 3000,
    host: '0.0.0.0',
    defaultPageSize: 100,
    maxPageSize: 1000,
    statementTimeoutMs: 5000,
    bcryptRounds: 10,
    logLevel: 'info',
    mailFrom: 'quire@localhost'
  })
  t.match(
    config,
    { embedded: true, dataDir: `${process.cwd()}/data` },
    'DATABASE_URL unset: the embedded server of ./data'
  )
  t.equal(
    config.databaseUrl,
    `postgres://quire@localhost/postgres?host=${encodeURIComponent(`${process.cwd()}/data/postgres`)}`,
    'through its Unix socket'
  )
  t.match(loadConfig({ DATA_DIR: '/srv/q' }), {
    embedded: true,
    dataDir: '/srv/q',
    databaseUrl: 'postgres://quire@localhost/postgres?host=%2Fsrv%2Fq%2Fpostgres'
  })
  t.equal(loadConfig({ DATA_DIR: 'q' }).dataDir, `${process.cwd()}/q`, 'DATA_DIR is made absolute')
  t.match(
    loadConfig({ DATABASE_URL: 'postgres://db/x' }),
    { embedded: false, databaseUrl: 'postgres://db/x' },
    'a DATABASE_URL is used as given'
  )
  t.equal(loadConfig({ PORT: '', LOG_LEVEL: '' }).port, 3000, 'an empty value counts as unset')
  t.equal(loadConfig({ PORT: '8080', BCRYPT_ROUNDS: '12' }).port, 8080)
  t.equal(
    loadConfig({ QUIRE_URL: 'http://q:3000', QUIRE_API_KEY: 'k', QUIRE_TOKEN: 't' }).port,
    3000,
    "quire mcp's variables (a client's) do not stop a server"
  )
  t.equal(loadConfig({ PATH: '/bin', HOSTNAME: 'box', TERM: 'xterm' }).port, 3000, 'unrelated variables are left alone')
  t.match(
    loadConfig({ TRUST_PROXY: '10.0.0.0/8, loopback', CORS_ORIGINS: 'https://a.example, http://localhost:5173' }),
    { trustProxy: ['10.0.0.0/8', 'loopback'], corsOrigins: ['https://a.example', 'http://localhost:5173'] },
    'lists'
  )
  t.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true)
  t.same(loadConfig({}).corsOrigins, [], 'no CORS unless asked')
})

const mistakes: Array<[string, Record<string, string>, string]> = [
  ['not a number', { PORT: 'abc' }, 'configuration: PORT must be a whole number, from 0 to 65535 (got "abc")'],
  ['out of range', { PORT: '70000' }, 'configuration: PORT must be a whole number, from 0 to 65535 (got "70000")'],
  [
    'a fraction',
    { BCRYPT_ROUNDS: '10.5' },
    'configuration: BCRYPT_ROUNDS must be a whole number, from 4 to 31 (got "10.5")'
  ],
  [
    'below the minimum',
    { MAX_PAGE_SIZE: '0' },
    'configuration: MAX_PAGE_SIZE must be a whole number, 1 or more (got "0")'
  ],
  [
    'not plain digits',
    { STATEMENT_TIMEOUT_MS: '1e3' },
    'configuration: STATEMENT_TIMEOUT_MS must be a whole number, 0 or more (got "1e3")'
  ],
  ['hexadecimal', { PORT: '0x50' }, 'configuration: PORT must be a whole number, from 0 to 65535 (got "0x50")'],
  [
    'two at once',
    { PORT: '-1', PG_POOL_SIZE: 'many' },
    'configuration: PORT must be a whole number, from 0 to 65535 (got "-1"); PG_POOL_SIZE must be a whole ' +
      'number, 1 or more (got "many")'
  ],
  [
    'not a level',
    { LOG_LEVEL: 'loud' },
    'configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")'
  ],
  [
    'a wrong scheme, credentials not echoed',
    { DATABASE_URL: 'mysql://root:hunter2@db/x' },
    'configuration: DATABASE_URL must start with postgres://, postgresql://, mongodb:// or mongodb+srv://'
  ],
  [
    'no scheme',
    { DATABASE_URL: 'localhost:5432' },
    'configuration: DATABASE_URL must start with postgres://, postgresql://, mongodb:// or mongodb+srv://'
  ],
  [
    "the previous embedded engine's scheme",
    { DATABASE_URL: 'pglite://memory' },
    'configuration: DATABASE_URL: pglite:// is no longer supported: unset DATABASE_URL to use the ' +
      "embedded PostgreSQL server in DATA_DIR (a PGlite directory's data moves with `quire export` of the " +
      'previous version and `quire import`; see CHANGELOG.md)'
  ],
  [
    'a wrong mail scheme',
    { SMTP_URL: 'mail.example.com' },
    'configuration: SMTP_URL must start with smtp:// or smtps://'
  ],
  [
    'page sizes that disagree',
    { DEFAULT_PAGE_SIZE: '500', MAX_PAGE_SIZE: '100' },
    'configuration: DEFAULT_PAGE_SIZE (500) must not exceed MAX_PAGE_SIZE (100)'
  ],
  [
    'an unknown QUIRE_ name',
    { QUIRE_SECRETS: 'x' },
    'configuration: QUIRE_SECRETS is not a Quire setting: did you mean QUIRE_SECRET?'
  ],
  [
    'an unknown QUIRE_ name far from any',
    { QUIRE_COLOR: 'blue' },
    "configuration: QUIRE_COLOR is not a Quire setting (see the README's configuration table)"
  ],
  [
    'a typo',
    { DATABSE_URL: 'postgres://x/y' },
    'configuration: DATABSE_URL is not a Quire setting: did you mean DATABASE_URL?'
  ],
  [
    'lower case',
    { database_url: 'postgres://x/y' },
    'configuration: database_url is not a Quire setting: did you mean DATABASE_URL?'
  ],
  ['no underscores', { LOGLEVEL: 'debug' }, 'configuration: LOGLEVEL is not a Quire setting: did you mean LOG_LEVEL?'],
  [
    'a usual other name',
    { DB_URL: 'postgres://x/y' },
    'configuration: DB_URL is not a Quire setting: did you mean DATABASE_URL?'
  ],
  [
    'a proxy that is not an address',
    { TRUST_PROXY: '10.0.0.0/8,gateway' },
    'configuration: TRUST_PROXY: invalid IP address: gateway'
  ],
  [
    'a hop count',
    { TRUST_PROXY: '2' },
    "configuration: TRUST_PROXY: a hop count cannot tell a proxy from a client: list the proxies' addresses or ranges"
  ],
  [
    'an origin with a path',
    { CORS_ORIGINS: 'https://app.example.com/' },
    'configuration: CORS_ORIGINS must be * or a comma-separated list of origins such as https://app.example.com'
  ],
  ['not a boolean', { METRICS_ENABLED: 'yes' }, 'configuration: METRICS_ENABLED must be true or false (got "yes")'],
  [
    'a short metrics token',
    { METRICS_TOKEN: 'secret' },
    'configuration: METRICS_TOKEN must be at least 16 characters long'
  ]
]

t.test('mistakes are one line naming the variable', async t => {
  for (const [name, env, message] of mistakes) {
    let caught: unknown
    try {
      loadConfig(env)
    } catch (err) {
      caught = err
    }
    t.type(caught, ConfigError, name)
    t.equal((caught as Error | undefined)?.message, message, name)
  }
})

t.test('the README documents every variable of the schema, and no other', async t => {
  const readme = readFileSync(new URL('README.md', `file://${REPO_ROOT}`), 'utf8')
  const section = readme.slice(
    readme.indexOf('## Configuration'),
    readme.indexOf('\n## ', readme.indexOf('## Configuration') + 5)
  )
  const documented = [...section.matchAll(/^\| `([A-Z_]+)` \|/gm)].map(m => m[1]).sort()
  const names = Object.keys(EnvSchema.properties).sort()
  t.same(documented, names)
  for (const name of names)
    t.ok(
      (EnvSchema.properties as Record<string, { description?: string }>)[name].description,
      `${name} has a description`
    )
})

t.test('database addresses are read from the URL', async t => {
  t.same(serverAddresses('postgres://u:p@db.example.com/x', 5432), [{ host: 'db.example.com', port: 5432 }])
  t.same(serverAddresses('postgres://u:p%40ss@10.0.0.1:6543/x?sslmode=require', 5432), [
    { host: '10.0.0.1', port: 6543 }
  ])
  t.same(serverAddresses('mongodb://a:27018,b,[::1]:27019/db?replicaSet=rs', 27017), [
    { host: 'a', port: 27018 },
    { host: 'b', port: 27017 },
    { host: '::1', port: 27019 }
  ])
  t.same(serverAddresses('postgres:///x?host=/var/run/postgresql', 5432), [], 'a Unix socket is not probed')
})

t.test('quire serve refuses a bad start with one line and exit code 1', async t => {
  const port = await freePort()
  const cases: Array<[string, Record<string, string>, string]> = [
    [
      'an unreachable PostgreSQL',
      { DATABASE_URL: `postgres://quire:secret@127.0.0.1:${port}/quire` },
      `quire: cannot reach PostgreSQL at 127.0.0.1:${port}: connection refused\n`
    ],
    [
      'an unreachable MongoDB',
      { DATABASE_URL: `mongodb://127.0.0.1:${port}/quire` },
      `quire: cannot reach MongoDB at 127.0.0.1:${port}: connection refused\n`
    ],
    [
      'a wrong scheme',
      { DATABASE_URL: 'mysql://root@localhost/quire' },
      'quire: configuration: DATABASE_URL must start with postgres://, postgresql://, mongodb:// or mongodb+srv://\n'
    ],
    [
      'a bad port',
      { PORT: 'http' },
      'quire: configuration: PORT must be a whole number, from 0 to 65535 (got "http")\n'
    ]
  ]
  await Promise.all(
    cases.map(async ([name, env, line]) => {
      const result = await runCli(['serve'], { LOG_LEVEL: 'warn', ...env })
      t.equal(result.code, 1, `${name}: exit code`)
      t.equal(result.stderr, line, `${name}: one line, no stack trace`)
    })
  )
})
