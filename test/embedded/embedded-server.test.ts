// The embedded PostgreSQL server of a DATA_DIR (src/embedded/): a new directory gets a cluster
// and a socket-only, durable server; one server per directory whoever asks; the last user out
// stops it; a server left running is found and used; unusable directories are one clear line.
import t from 'tap'
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { useEmbeddedServer, embeddedServerRunning } from '../../src/embedded/embedded-server.ts'
import { postgresTarget } from '../../src/storage/postgres/postgres-url.ts'
import { describeStartupFailure } from '../../src/startup-error.ts'

/** A new directory the server's user can reach (as root, the server runs as `postgres`). */
function newParent(): string {
  const parent = mkdtempSync(join(tmpdir(), 'quire-embedded-'))
  chmodSync(parent, 0o755)
  t.teardown(() => rmSync(parent, { recursive: true, force: true }))
  return parent
}

function connect(url: string): postgres.Sql {
  const target = postgresTarget(url)
  return postgres(target.url, { host: target.host, max: 1, onnotice: () => {} })
}

const quiet = (): void => {}

t.test('a new DATA_DIR: a cluster, a server on a Unix socket only, fsync on; released, it stops', async t => {
  const dataDir = join(newParent(), 'data')
  const messages: string[] = []
  const server = await useEmbeddedServer(dataDir, msg => messages.push(msg))
  t.teardown(() => server.release())
  t.match(messages.join('\n'), /created a PostgreSQL 18 database/)
  t.match(messages.join('\n'), /started the embedded PostgreSQL server/)
  const sql = connect(server.url)
  const [row] = await sql`SELECT current_setting('listen_addresses') AS listen, current_setting('fsync') AS fsync,
      current_setting('synchronous_commit') AS sync`
  await sql.end()
  t.same(row, { listen: '', fsync: 'on', sync: 'on' }, 'no TCP listener; acknowledged writes are durable')
  t.ok(embeddedServerRunning(dataDir))
  await server.release()
  t.notOk(embeddedServerRunning(dataDir), 'the last user out stopped the server')
})

t.test(
  'one server per directory: a second user shares it, and the first to leave does not stop it under the other',
  async t => {
    const dataDir = join(newParent(), 'data')
    const first = await useEmbeddedServer(dataDir, quiet)
    const secondMessages: string[] = []
    const second = await useEmbeddedServer(dataDir, msg => secondMessages.push(msg))
    t.teardown(async () => {
      await first.release()
      await second.release()
    })
    t.match(secondMessages.join('\n'), /using the embedded PostgreSQL server already running/)
    const sql = connect(second.url)
    await sql`CREATE TABLE kept (n int)`
    await sql`INSERT INTO kept VALUES (1)`
    await first.release()
    t.ok(embeddedServerRunning(dataDir), 'another client is connected: the server keeps running')
    t.same(await sql`SELECT n FROM kept`, [{ n: 1 }])
    await sql.end()
    await second.release()
    t.notOk(embeddedServerRunning(dataDir))
  }
)

t.test('a server left running (its Quire died) is found and used; two starting at once get one server', async t => {
  const dataDir = join(newParent(), 'data')
  const [a, b] = await Promise.all([useEmbeddedServer(dataDir, quiet), useEmbeddedServer(dataDir, quiet)])
  t.teardown(async () => {
    await a.release()
    await b.release()
  })
  const sql = connect(a.url)
  await sql`CREATE TABLE survived (n int)`
  await sql`INSERT INTO survived VALUES (7)`
  await sql.end()
  // Neither lets go, as if both were killed: the next one finds the same server and the data.
  const next = await useEmbeddedServer(dataDir, quiet)
  const again = connect(next.url)
  t.same(await again`SELECT n FROM survived`, [{ n: 7 }])
  await again.end()
  await next.release()
  t.notOk(embeddedServerRunning(dataDir))
})

t.test('data survives a stop and a restart', async t => {
  const dataDir = join(newParent(), 'data')
  const first = await useEmbeddedServer(dataDir, quiet)
  let sql = connect(first.url)
  await sql`CREATE TABLE durable (s text)`
  await sql`INSERT INTO durable VALUES ('kept')`
  await sql.end()
  await first.release()
  const messages: string[] = []
  const second = await useEmbeddedServer(dataDir, msg => messages.push(msg))
  t.teardown(() => second.release())
  t.notMatch(messages.join('\n'), /created/, 'the existing cluster is reused')
  sql = connect(second.url)
  t.same(await sql`SELECT s FROM durable`, [{ s: 'kept' }])
  await sql.end()
})

t.test(
  'a pid file left by a server that died with its machine, naming a live process of another program, is ' +
    'not taken for a server',
  { skip: process.platform !== 'linux' && 'only Linux says what a process runs (/proc)' },
  async t => {
    const dataDir = join(newParent(), 'data')
    const first = await useEmbeddedServer(dataDir, quiet)
    await first.release()
    // After a container restart the old pid may be anyone's: here, this test's own (node) process.
    const stale = [process.pid, dataDir, '0', '5432', dataDir, '', '0 0', 'ready', ''].join('\n')
    writeFileSync(join(dataDir, 'postgres', 'postmaster.pid'), stale)
    t.notOk(embeddedServerRunning(dataDir), 'node is not PostgreSQL')
    const messages: string[] = []
    const second = await useEmbeddedServer(dataDir, msg => messages.push(msg))
    t.teardown(() => second.release())
    t.match(messages.join('\n'), /started the embedded PostgreSQL server/)
    const sql = connect(second.url)
    t.same(await sql`SELECT 1 AS one`, [{ one: 1 }])
    await sql.end()
  }
)

/** The one line a command would print for what `useEmbeddedServer` throws on `dataDir`. */
async function failureLine(dataDir: string): Promise<string | undefined> {
  try {
    const server = await useEmbeddedServer(dataDir, quiet)
    await server.release()
    return undefined
  } catch (err) {
    return describeStartupFailure(err)
  }
}

t.test('unusable data directories are one clear line each, and nothing is written to them', async t => {
  const parent = newParent()

  const pglite = join(parent, 'pglite')
  mkdirSync(pglite)
  writeFileSync(join(pglite, 'PG_VERSION'), '17\n')
  t.match(await failureLine(pglite), /previous embedded engine \(PGlite\).*quire export.*quire import/)

  const foreign = join(parent, 'foreign')
  mkdirSync(foreign)
  writeFileSync(join(foreign, 'notes.txt'), 'mine')
  t.match(await failureLine(foreign), /is not empty and holds no Quire database \(notes\.txt\)/)
  t.same(readdirSync(foreign), ['notes.txt'])
  t.same(readdirSync(pglite), ['PG_VERSION'])

  const otherVersion = join(parent, 'old')
  mkdirSync(join(otherVersion, 'postgres'), { recursive: true })
  writeFileSync(join(otherVersion, 'postgres', 'PG_VERSION'), '15\n')
  t.match(await failureLine(otherVersion), /was made by PostgreSQL 15, and the embedded server is PostgreSQL 18/)

  const notCluster = join(parent, 'broken')
  mkdirSync(join(notCluster, 'postgres'), { recursive: true })
  writeFileSync(join(notCluster, 'postgres', 'stray'), '')
  t.match(await failureLine(notCluster), /is not a PostgreSQL cluster \(no PG_VERSION\)/)

  const long = join(parent, 'x'.repeat(100))
  t.match(await failureLine(long), /too long a path for the database server's Unix socket/)
})

t.test(
  "as root, a DATA_DIR the server's user cannot reach is one clear line",
  { skip: userInfo().uid !== 0 && 'only as root does the server run as another user (postgres)' },
  async t => {
    const hidden = mkdtempSync(join(tmpdir(), 'quire-hidden-')) // 0700, root's
    t.teardown(() => rmSync(hidden, { recursive: true, force: true }))
    t.match(await failureLine(join(hidden, 'data')), /runs as user postgres.*cannot reach DATA_DIR/)
  }
)
