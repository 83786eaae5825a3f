// The embedded default as an operator meets it through the `quire` command line: every command
// reaches the same data whether or not `quire serve` runs (an admin created meanwhile logs in
// after a restart), a Quire killed with kill -9 leaves its server to the next start, a second
// `quire serve` on the same DATA_DIR shares it, and start errors are one line without a stack.
import t from 'tap'
import { chmodSync, mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli, startServer, type ServerProcess } from '../helpers/run-cli.ts'
import { embeddedServerRunning } from '../../src/embedded/embedded-server.ts'

delete process.env.DATABASE_URL // the embedded default is what these tests are about

function newDataDir(): string {
  const parent = mkdtempSync(join(tmpdir(), 'quire-cli-'))
  chmodSync(parent, 0o755) // as root, the server runs as postgres, who must reach DATA_DIR
  t.teardown(() => rmSync(parent, { recursive: true, force: true }))
  return join(parent, 'data')
}

async function stop(server: ServerProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  server.child.kill(signal)
  return await server.exited
}

function basic(email: string, password: string): string {
  return `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`
}

const env = (dataDir: string): Record<string, string> => ({ DATA_DIR: dataDir, BCRYPT_ROUNDS: '4', LOG_FORMAT: 'json' })

t.test(
  'an admin created while quire serve runs logs in after a restart; the server stops with the last Quire',
  async t => {
    const dataDir = newDataDir()
    const first = await startServer(env(dataDir))
    t.teardown(() => {
      first.child.kill('SIGKILL')
    })
    const created = await runCli(
      ['admin', 'create', '--email', 'boss@example.com', '--password', 'right-password'],
      env(dataDir)
    )
    t.equal(created.code, 0, created.stderr)
    t.match(created.stdout, /admin boss@example.com created/)
    t.ok(embeddedServerRunning(dataDir), 'admin create left the server to quire serve')
    t.equal(
      (
        await fetch(`${first.url}/api/test`, {
          headers: { authorization: basic('boss@example.com', 'right-password') }
        })
      ).status,
      200
    )
    t.equal(await stop(first), 0)
    t.notOk(embeddedServerRunning(dataDir), 'the last Quire out stopped the server')

    const second = await startServer(env(dataDir))
    t.teardown(() => {
      second.child.kill('SIGKILL')
    })
    const login = await fetch(`${second.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'boss@example.com', password: 'right-password' })
    })
    t.equal(login.status, 200, 'the admin logs in after the restart')
    t.equal(await stop(second), 0)
  }
)

t.test('kill -9 leaves the server running; the next quire serve uses it, with every acknowledged write', async t => {
  const dataDir = newDataDir()
  const first = await startServer(env(dataDir))
  t.teardown(() => {
    first.child.kill('SIGKILL')
  })
  const setup = await fetch(`${first.url}/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'a@example.com', password: 'a-password' })
  })
  t.equal(setup.status, 200)
  const auth = basic('a@example.com', 'a-password')
  const ids: string[] = []
  for (let i = 0; i < 20; i++) {
    const res = await fetch(`${first.url}/api/test`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: auth },
      body: JSON.stringify({ foo: `written-${i}` })
    })
    t.equal(res.status, 200)
    ids.push(((await res.json()) as { data: { _id: string } }).data._id)
  }
  await stop(first, 'SIGKILL')
  t.ok(embeddedServerRunning(dataDir), 'the database server outlives its Quire')

  const second = await startServer(env(dataDir))
  t.teardown(() => {
    second.child.kill('SIGKILL')
  })
  t.ok(
    second.lines.some(line => line.includes('using the embedded PostgreSQL server already running')),
    'the running server is used, not a second one'
  )
  const listed = await fetch(`${second.url}/api/test?limit=100`, { headers: { authorization: auth } })
  const found = ((await listed.json()) as { data: Array<{ _id: string }> }).data.map(doc => doc._id)
  t.same(found.sort(), [...ids].sort(), 'every acknowledged write is there')

  // A second quire serve on the same DATA_DIR shares the database.
  const third = await startServer(env(dataDir))
  t.teardown(() => {
    third.child.kill('SIGKILL')
  })
  t.equal((await fetch(`${third.url}/api/test/${ids[0]}`, { headers: { authorization: auth } })).status, 200)
  t.equal(await stop(second), 0)
  t.ok(embeddedServerRunning(dataDir), 'the other quire serve still uses it')
  t.equal(await stop(third), 0)
  t.notOk(embeddedServerRunning(dataDir))
})

t.test('start errors on the embedded default are one line, no stack', async t => {
  const pglite = newDataDir()
  mkdirSync(pglite)
  writeFileSync(join(pglite, 'PG_VERSION'), '17\n')
  const refused = await runCli(['serve'], { ...env(pglite), PORT: '0' })
  t.equal(refused.code, 1)
  t.match(refused.stderr, /^quire: DATA_DIR .* holds a database of Quire's previous embedded engine \(PGlite\)/)
  t.equal(refused.stderr.trim().split('\n').length, 1, 'one line')
  t.notMatch(refused.stderr, /\n\s+at /, 'no stack trace')

  const oldUrl = await runCli(['serve'], { ...env(newDataDir()), DATABASE_URL: 'pglite://./data' })
  t.equal(oldUrl.code, 1)
  t.match(oldUrl.stderr, /pglite:\/\/ .*no longer.*unset DATABASE_URL/)

  const oldSetting = await runCli(['serve'], { ...env(newDataDir()), PGLITE_RECYCLE_MB: '64' })
  t.equal(oldSetting.code, 1)
  t.match(oldSetting.stderr, /^quire: configuration: PGLITE_RECYCLE_MB is no longer read/)
})
