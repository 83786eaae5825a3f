// The quick lane (src/storage/postgres/quick-lane.ts): quick-first reads run pipelined on a fifth of the
// pool, each cut at QUICK_STATEMENT_MS; one cut there runs again as an expensive statement on a
// connection of its own; simple statements keep their own connections.
import t, { type Test } from 'tap'
import { openPostgres } from '../../../src/storage/postgres/postgres-client.ts'
import type { SqlClient } from '../../../src/storage/sql/sql-client.ts'
import { createTestApp, databaseUrl } from '../../helpers/test-app.ts'
import { buildApp } from '../../../app.ts'

const LIMIT_MS = 5000
const QUICK_MS = 200
const QUICK_FIRST = { quickFirst: true } as const

async function open(t: Test, quickStatementMs = QUICK_MS, poolSize = 10): Promise<SqlClient> {
  const client = openPostgres(await databaseUrl('postgres'), LIMIT_MS, { poolSize, quickStatementMs })
  t.teardown(() => client.close())
  return client
}

const timeoutOf = async (client: SqlClient, options?: object): Promise<string> =>
  (await client.query("SELECT current_setting('statement_timeout') AS t", [], options))[0].t as string

/**
 * Whether a statement ran under the whole statement timeout, not the lane's: a statement that
 * waited for a connection runs under what is left of the timeout (say 4904ms on a loaded machine),
 * so the test asks for more than half of it rather than exactly 5s.
 */
const wholeLimit = (setting: string): boolean => {
  const [, n, unit] = /^(\d+)(ms|s)$/.exec(setting) ?? []
  return Number(n) * (unit === 's' ? 1000 : 1) > LIMIT_MS / 2
}

t.test(
  'a quick-first read runs on the quick lane, under its time limit; other statements keep the whole limit',
  async t => {
    const client = await open(t)
    t.equal(await timeoutOf(client, QUICK_FIRST), `${QUICK_MS}ms`, "quick-first: the lane's limit")
    t.ok(wholeLimit(await timeoutOf(client)), 'expensive: the statement timeout')
    t.ok(wholeLimit(await timeoutOf(client, { cost: 'simple' })), 'simple: the statement timeout')
    const off = await open(t, 0)
    t.ok(
      wholeLimit(await timeoutOf(off, QUICK_FIRST)),
      'QUICK_STATEMENT_MS=0: no lane, the read is an expensive statement'
    )
    const small = await open(t, QUICK_MS, 4)
    t.ok(wholeLimit(await timeoutOf(small, QUICK_FIRST)), 'a pool below 5 connections has no lane either')
  }
)

t.test('a read cut on the quick lane runs again as an expensive statement and answers', async t => {
  const client = await open(t)
  const name = `quick_lane_${process.pid}`
  await client.exec(`DROP SEQUENCE IF EXISTS ${name}; CREATE SEQUENCE ${name}`)
  t.teardown(() => client.exec(`DROP SEQUENCE IF EXISTS ${name}`))
  // nextval is not rolled back with the cut statement: the value tells how often it ran.
  const slow = await client.query(
    `SELECT nextval('${name}') AS n, pg_sleep(${(QUICK_MS * 2) / 1000}) AS s, ` +
      `current_setting('statement_timeout') AS t`,
    [],
    QUICK_FIRST
  )
  t.equal(Number(slow[0].n), 2, 'cut once on the lane, then answered')
  const left = Number(/^(\d+)ms$/.exec(slow[0].t as string)?.[1])
  t.ok(
    left > LIMIT_MS / 2 && left <= LIMIT_MS - QUICK_MS,
    `with what was left of the statement timeout after the lane's limit (${slow[0].t as string})`
  )
  const quick = await client.query(`SELECT nextval('${name}') AS n`, [], QUICK_FIRST)
  t.equal(Number(quick[0].n), 3, 'a read within the limit runs once')
})

t.test(
  "when the lane's limit is the statement timeout, a read cut there has timed out: it is not run again",
  async t => {
    const client = openPostgres(await databaseUrl('postgres'), QUICK_MS, {
      poolSize: 9,
      quickStatementMs: QUICK_MS * 2
    })
    t.teardown(() => client.close())
    const name = `quick_lane_final_${process.pid}`
    await client.exec(`DROP SEQUENCE IF EXISTS ${name}; CREATE SEQUENCE ${name}`)
    t.teardown(() => client.exec(`DROP SEQUENCE IF EXISTS ${name}`))
    t.equal(await timeoutOf(client, QUICK_FIRST), `${QUICK_MS}ms`, 'the lane has the statement timeout')
    await t.rejects(
      client.query(`SELECT nextval('${name}'), pg_sleep(${(QUICK_MS * 2) / 1000})`, [], QUICK_FIRST),
      { code: '57014' },
      'the statement timeout (QUERY_TIMEOUT), not a 503 for the little time left'
    )
    t.equal(Number((await client.query(`SELECT last_value AS n FROM ${name}`))[0].n), 1, 'it ran once')
  }
)

t.test('a read that fails for another reason is not run again', async t => {
  const client = await open(t)
  await t.rejects(client.query('SELECT 1 / 0', [], QUICK_FIRST), { code: '22012' }, 'the division by zero, as it is')
})

t.test("quick reads share the lane's connections, and simple statements do not wait behind them", async t => {
  const client = await open(t)
  // 12 reads of 0.1 s at once: pipelined on the lane's 2 connections (6 deep), not on 12 of them.
  const reads = Array.from({ length: 12 }, () => client.query('SELECT pg_sleep(0.1) AS s', [], QUICK_FIRST))
  const settled = Promise.all(reads).then(() => 'reads')
  const simple = client.query('SELECT 1 AS one', [], { cost: 'simple' }).then(() => 'simple')
  t.equal(await Promise.race([settled, simple]), 'simple', 'the simple statement answered while the reads were queued')
  const watcher = await open(t, 0, 1)
  const running = await watcher.query(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(0.1) AS s' AND state = 'active'",
    [],
    { cost: 'simple' }
  )
  t.ok(Number(running[0].n) <= 2, `at most the lane's 2 connections run them at once (${running[0].n})`)
  t.equal((await Promise.all(reads)).length, 12, 'and every read answered')
})

t.test('lists, searches, counts and aggregations cut on the quick lane answer as without the lane', async t => {
  const { app, admin } = await createTestApp(t, 'postgres', { quickStatementMs: 0, countCacheMs: 0 })
  const docs = Array.from({ length: 3000 }, (_, i) => ({
    insertOne: {
      document: {
        foo: `foo-${i % 7}`,
        shmack: [`w${i % 5}`, 'x'],
        yack: { s: `g${i % 3}`, n: i },
        fulltext: `entry ${i % 11 === 0 ? 'rare' : 'common'} words`
      }
    }
  }))
  for (let i = 0; i < docs.length; i += 1000) {
    t.equal(
      (
        await app.inject({
          method: 'POST',
          url: '/bulkwrite/test',
          headers: { authorization: admin },
          payload: docs.slice(i, i + 1000)
        })
      ).statusCode,
      200
    )
  }
  // The same database, with a lane cut at 1 ms: most of these statements are cut there and run again as expensive ones.
  const cut = await buildApp({ config: { ...app.config, quickStatementMs: 1 } })
  t.teardown(() => cut.close())
  const reads = [
    { url: '/api/test?filter[shmack]=w3&limit=20&sort=-yack.n' },
    { url: '/api/test?filter[foo]=foo-2&filter[yack.n][$gt]=100&limit=15' },
    { url: '/api/test?filter[fulltext]=$regex:/RARE/i&limit=5&page=3' },
    { url: '/api/test?search=rare&limit=10' },
    { url: '/count/test?filter[shmack]=w1' },
    {
      method: 'POST' as const,
      url: '/aggregate/test',
      payload: [
        { $match: { foo: 'foo-3' } },
        { $group: { _id: '$yack.s', total: { $sum: '$yack.n' } } },
        { $sort: { _id: 1 } }
      ]
    }
  ]
  for (const read of reads) {
    const [plain, lane] = await Promise.all(
      [app, cut].map(server => server.inject({ ...read, headers: { authorization: admin } }))
    )
    t.equal(lane.statusCode, 200, `${read.url}: ${lane.body.slice(0, 200)}`)
    t.same(JSON.parse(lane.body), JSON.parse(plain.body), `${read.url}: the same answer`)
  }
})
