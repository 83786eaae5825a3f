// Concurrent creates share INSERT statements (src/storage/sql/insert-batches.ts): every create still
// gets its own stored document back, a create refused by the database (a duplicate unique value)
// fails alone while the others of its batch are stored, the change log records each create's own
// acting user, a client leaving does not cancel the batch its create joined, large documents
// are split over several statements, and a batch the database cannot be reached for fails at
// once instead of being retried document by document. On PostgreSQL.
import t from 'tap'
import { openPostgres } from '../../../src/storage/postgres/postgres-client.ts'
import { createSqlEngine } from '../../../src/storage/sql/sql-engine.ts'
import type { Doc } from '../../../src/storage/engine.ts'
import { runInRequestScope } from '../../../src/runtime/request-scope.ts'
import { parseModelFile } from '../../../src/models/load-models.ts'
import type { SqlClient } from '../../../src/storage/sql/sql-client.ts'
import { QuireError } from '../../../src/errors.ts'
import { databaseUrl, ENGINES, type EngineName } from '../../helpers/test-app.ts'
import { startTcpProxy } from '../../helpers/tcp-proxy.ts'
import { isDatabaseUnavailable } from '../../../src/storage/database-unavailable.ts'

const model = parseModelFile(
  JSON.stringify({
    name: 'batched',
    fields: { code: { type: 'string' }, blob: { type: 'string' }, secret: { type: 'password' } },
    indexes: [{ fields: ['code'], unique: true }]
  }),
  'batched.json'
)

const docOf = (k: number, code = `c${k}`): Doc => {
  const id = k.toString(16).padStart(24, '0')
  return { _id: id, id, _deleted: false, code, secret: '$2a$04$hash' }
}

async function openClient(engine: EngineName): Promise<SqlClient> {
  return openPostgres(await databaseUrl(engine), 60_000)
}

/** Runs `work` as a request of user `userId` whose client may leave (`leave` aborts its signal). */
function asRequest<T>(userId: string, work: () => Promise<T>, leave?: AbortController): Promise<T> {
  const scope = {
    signal: (leave ?? new AbortController()).signal,
    client: '127.0.0.1',
    caller: { userId, admin: false, groups: [] }
  }
  return runInRequestScope(scope, work)
}

for (const engine of ENGINES) {
  t.test(`${engine}: concurrent creates share statements and keep their own outcomes`, async t => {
    const client = await openClient(engine)
    t.teardown(() => client.close())
    const sql = createSqlEngine(client)
    await sql.syncModels([model])
    await sql.insert(model, docOf(0, 'taken'))

    const users = ['a'.repeat(24), 'b'.repeat(24)]
    const leaving = new AbortController()
    const creates = Array.from({ length: 60 }, (_, k) =>
      asRequest(
        users[k % 2],
        () => sql.insert(model, docOf(k + 1, k === 30 ? 'taken' : undefined)),
        k === 0 ? leaving : undefined
      )
    )
    leaving.abort()
    const outcomes = await Promise.allSettled(creates)
    const refused = outcomes.flatMap((o, k) => (o.status === 'rejected' ? [[k, o.reason]] : []))
    t.equal(refused.length, 1, 'one create is refused')
    t.equal(refused[0][0], 30, 'the one with the duplicate value')
    t.ok(refused[0][1] instanceof QuireError && refused[0][1].code === 'DUPLICATE_KEY', 'as a duplicate key')
    outcomes.forEach((o, k) => {
      if (o.status !== 'fulfilled') return
      const stored = JSON.parse(o.value) as Doc
      if (stored._id !== docOf(k + 1)._id || stored.code !== `c${k + 1}` || 'secret' in stored)
        t.fail(`create ${k} answered ${o.value}`)
    })
    t.pass('each stored create answers its own document, without its password field')

    const rows = await client.query('SELECT _id, xmin::text AS tx FROM q_batched')
    t.equal(rows.length, 60, 'the 59 creates and the first document are stored')
    const transactionsOf = (user: number): number =>
      new Set(
        rows
          .filter(r => parseInt(r._id as string, 16) % 2 === (user === 0 ? 1 : 0) && r._id !== docOf(0)._id)
          .map(r => r.tx)
      ).size
    t.ok(transactionsOf(1) <= 3, `the 30 creates of one user took ${transactionsOf(1)} statements`)
    t.ok(
      transactionsOf(0) > 3,
      `the other user's batch with the refused create was retried one by one: ${transactionsOf(0)} statements`
    )
    const actors = await client.query(
      "SELECT doc_id, actor FROM quire_changes WHERE model = 'batched' AND op = 'create' AND actor IS NOT NULL"
    )
    t.equal(actors.length, 59)
    t.ok(
      actors.every(row => row.actor === users[parseInt(row.doc_id as string, 16) % 2 === 1 ? 0 : 1]),
      'each create is recorded with its own acting user'
    )
  })

  t.test(`${engine}: a statement carries at most 2 MiB of documents`, async t => {
    const client = await openClient(engine)
    t.teardown(() => client.close())
    const sql = createSqlEngine(client)
    await sql.syncModels([model])
    const big = (k: number): Doc => ({ ...docOf(k), blob: String(k).repeat(700_000 / String(k).length) })
    const stored = await Promise.all(
      Array.from({ length: 6 }, (_, k) => asRequest('c'.repeat(24), () => sql.insert(model, big(k + 1))))
    )
    t.equal(stored.length, 6)
    const rows = await client.query("SELECT xmin::text AS tx, length(doc->>'blob') AS n FROM q_batched")
    t.ok(
      rows.every(row => Number(row.n) >= 699_000),
      'every document is stored whole'
    )
    const statements = new Set(rows.map(row => row.tx)).size
    t.ok(
      statements >= 3 && statements < 6,
      `six 700 KB documents took ${statements} statements (at most two per 2 MiB, more than one per statement)`
    )
  })
}

t.test('a batch the database cannot be reached for fails whole, with one connection attempt per statement', async t => {
  const proxy = await startTcpProxy(await databaseUrl('postgres'))
  t.teardown(() => proxy.close())
  const client = await openPostgres(proxy.url, 1000)
  t.teardown(() => client.close())
  const sql = createSqlEngine(client)
  await sql.syncModels([model])
  await proxy.setMode('blackhole')
  const before = proxy.connectionsFromClients()
  const outcomes = await Promise.allSettled(
    Array.from({ length: 30 }, (_, k) => asRequest('d'.repeat(24), () => sql.insert(model, docOf(k + 1))))
  )
  t.ok(
    outcomes.every(o => o.status === 'rejected' && isDatabaseUnavailable(o.reason)),
    'every create fails as "database unavailable"'
  )
  const attempts = proxy.connectionsFromClients() - before
  t.ok(attempts <= 4, `30 creates in one batch tried ${attempts} connections (one per statement), not one per document`)
})
