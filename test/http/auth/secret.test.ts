// The service secret lasts: with no QUIRE_SECRET, API keys, tokens and login
// links survive a restart (with the embedded server, the secret is kept in a 0600
// file in DATA_DIR; with a database server of one's own (DATABASE_URL), the database
// keeps one that every process shares), and a process whose secret differs from the
// database's is refused at start with one clear line, until `quire secret adopt`.
// Both on a PostgreSQL database: the embedded case is an app configured as `quire serve`
// configures it once the embedded server runs (embedded, with its DATA_DIR).
import t, { type Test } from 'tap'
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../../app.ts'
import { loadConfig, type Config } from '../../../src/config.ts'
import { StartupError } from '../../../src/startup-error.ts'
import { ENGINES, basicAuth, databaseUrl, type EngineName } from '../../helpers/test-app.ts'
import { TEST_SETTINGS, bearer, json, login } from '../../helpers/auth-helpers.ts'
import { QUIRE_CLI_ARGS } from '../../helpers/run-cli.ts'

const run = promisify(execFile)
const root = new URL('../../..', import.meta.url).pathname
const SECRET_A = 'a'.repeat(64)
const SECRET_B = 'b'.repeat(64)

/**
 * A store that outlives one app: a PostgreSQL database, and with the embedded server its DATA_DIR (where the secret's
 * file is kept).
 */
interface Store {
  url: string
  dir?: string
}

/** Where the secret is kept without QUIRE_SECRET. */
const KEEPERS = [
  { name: 'the embedded server (a file in DATA_DIR)', embedded: true },
  { name: 'a database server (DATABASE_URL)', embedded: false }
]

async function storeFor(t: Test, engine: EngineName, embedded: boolean): Promise<Store> {
  const url = await databaseUrl(engine)
  if (!embedded) return { url }
  const dir = mkdtempSync(join(tmpdir(), 'quire-secret-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return { url, dir }
}

async function start(t: Test, store: Store, secret?: string): Promise<FastifyInstance> {
  const config: Config = {
    ...loadConfig({ DATABASE_URL: store.url }),
    ...(store.dir !== undefined && { embedded: true, dataDir: store.dir }),
    modelsDir: join(root, 'models'),
    bcryptRounds: 4,
    ...TEST_SETTINGS,
    secret
  }
  const app = await buildApp({ config })
  t.teardown(() => app.close())
  return app
}

/** The error a start with `secret` fails with (undefined when it starts). */
async function refusal(t: Test, store: Store, secret?: string): Promise<unknown> {
  return await start(t, store, secret).then(
    app => app.close(),
    (err: unknown) => err
  )
}

/**
 * The command line on the store's database, with QUIRE_SECRET set to `secret` (which decides, wherever the secret is
 * kept otherwise).
 */
async function cli(
  { url }: Store,
  args: string[],
  secret?: string
): Promise<{ code: number; out: string; err: string }> {
  const env = {
    ...process.env,
    DATABASE_URL: url,
    MODELS_DIR: join(root, 'models'),
    PORT: '0',
    HOST: '127.0.0.1',
    QUIRE_SECRET: secret ?? ''
  }
  try {
    const { stdout, stderr } = await run(process.execPath, [...QUIRE_CLI_ARGS, ...args], {
      env,
      cwd: root,
      timeout: 60_000
    })
    return { code: 0, out: stdout, err: stderr }
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string }
    return { code: e.code, out: e.stdout, err: e.stderr }
  }
}

for (const engine of ENGINES) {
  for (const keeper of KEEPERS) {
    t.test(`${engine}, ${keeper.name}`, async t => {
      t.test('with no QUIRE_SECRET, keys, tokens and links survive a restart', async t => {
        const store = await storeFor(t, engine, keeper.embedded)
        const { dir } = store
        const first = await start(t, store)
        t.equal(
          (
            await first.inject({
              method: 'POST',
              url: '/setup',
              payload: { email: 'root@example.com', password: 'root-password' }
            })
          ).statusCode,
          200
        )
        const session = await login(first, 'root@example.com', 'root-password')
        const { jwt } = json(
          await first.inject({
            method: 'POST',
            url: '/login/getjwt',
            headers: { authorization: basicAuth('root@example.com', 'root-password') },
            payload: { email: 'root@example.com' }
          })
        )
        await first.close()
        if (dir) {
          const file = join(dir, 'quire-secret')
          t.equal(statSync(file).mode & 0o777, 0o600, 'the secret file is mode 0600')
          t.match(readFileSync(file, 'utf8'), /^[0-9a-f]{64}\n$/)
        }

        const second = await start(t, store)
        const read = async (headers: Record<string, string>, query = ''): Promise<number> =>
          (await second.inject({ method: 'GET', url: `/api/user${query}`, headers })).statusCode
        t.equal(await read({ apikey: session.apikey }), 200, 'the API key works after the restart')
        t.equal(await read(bearer(session.token)), 200, 'so does the token')
        t.equal(await read({}, `?jwt=${jwt}`), 200, 'and the login link')
        const again = await login(second, 'root@example.com', 'root-password')
        t.equal(again.apikey, session.apikey, 'the next login returns the same key')
        t.equal(await read({ apikey: session.apikey }), 200, 'which still works')
      })

      t.test('a different secret is refused at start, until adopted', async t => {
        const store = await storeFor(t, engine, keeper.embedded)
        const { dir } = store
        await (await start(t, store, SECRET_A)).close()
        const refused = await refusal(t, store, SECRET_B)
        t.ok(refused instanceof StartupError, 'refused with a StartupError')
        t.match(
          (refused as Error).message,
          /^QUIRE_SECRET differs from the secret this database was set up with: use the same secret on every process/
        )
        const unset = await refusal(t, store)
        t.ok(unset instanceof StartupError, 'no QUIRE_SECRET on a database set up with one is refused too')
        t.match(
          (unset as Error).message,
          dir
            ? /^QUIRE_SECRET is not set and .*quire-secret is missing, but this database was set up with a secret/
            : /^QUIRE_SECRET is not set, but this database was set up with one/
        )

        const served = await cli(store, ['serve'], SECRET_B)
        t.equal(served.code, 1, 'quire serve exits with 1')
        t.match(
          served.err,
          /^quire: QUIRE_SECRET differs from the secret this database was set up with[^\n]*\n$/,
          'in one line'
        )
        const adopted = await cli(store, ['secret', 'adopt'], SECRET_B)
        t.equal(adopted.code, 0, adopted.err)
        t.match(adopted.out, /the service secret is now QUIRE_SECRET/)
        t.equal(await refusal(t, store, SECRET_B), undefined, 'the adopted secret starts')
        t.ok((await refusal(t, store, SECRET_A)) instanceof StartupError, 'the old one no longer does')
      })

      if (keeper.embedded) {
        t.test('a missing secret file is refused, not silently replaced', async t => {
          const store = await storeFor(t, engine, keeper.embedded)
          const dir = store.dir!
          await (await start(t, store)).close()
          const secret = readFileSync(join(dir, 'quire-secret'), 'utf8').trim()
          rmSync(join(dir, 'quire-secret'))
          const refused = await refusal(t, store)
          t.match((refused as Error).message, /quire-secret is missing, but this database was set up with a secret/)
          t.equal(await refusal(t, store, secret), undefined, "QUIRE_SECRET set to the file's secret starts")
        })
      } else {
        t.test('processes on one database share the stored secret', async t => {
          const store = await storeFor(t, engine, keeper.embedded)
          const [one, two] = await Promise.all([start(t, store), start(t, store)])
          await one.inject({
            method: 'POST',
            url: '/setup',
            payload: { email: 'root@example.com', password: 'root-password' }
          })
          const { jwt } = json(
            await one.inject({
              method: 'POST',
              url: '/login/getjwt',
              headers: { authorization: basicAuth('root@example.com', 'root-password') },
              payload: { email: 'root@example.com' }
            })
          )
          t.equal(
            (await two.inject({ method: 'GET', url: `/api/user?jwt=${jwt}` })).statusCode,
            200,
            'a link from one process works on the other'
          )
          const session = await login(one, 'root@example.com', 'root-password')
          t.equal(
            (await login(two, 'root@example.com', 'root-password')).apikey,
            session.apikey,
            'both return the same key'
          )
          const [other] = await Promise.all([refusal(t, store, SECRET_B)])
          t.ok(other instanceof StartupError, 'a process with another secret is refused while they run')
        })
      }
    })
  }
}
