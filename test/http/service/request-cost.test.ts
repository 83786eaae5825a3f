// Every request's cost is bounded on every engine (issue 9 items 1, 3 and 9): the audit's regex
// repros are 400s, a slow statement is answered QUERY_TIMEOUT and the server keeps serving, simple
// reads keep flowing while expensive statements hold their share of the connections, one that
// cannot get its turn in time is answered 503 busy, and a client that leaves takes its running
// statement with it.
import t, { type Test } from 'tap'
import { request as httpRequest } from 'node:http'
import postgres from 'postgres'
import type { FastifyInstance } from 'fastify'
import { ENGINES, createTestApp } from '../../helpers/test-app.ts'

/** A lookahead is matched again at every position: seconds per 50,000-character value on PostgreSQL. */
const SLOW_QUERY = {
  method: 'POST' as const,
  url: '/query/test',
  payload: { query: { fulltext: { $regex: '(?=a*x)' } } }
}

/** Stores `n` documents whose fulltext makes SLOW_QUERY take seconds each; returns their ids. */
async function insertSlowDocs(t: Test, app: FastifyInstance, admin: string, n: number): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < n; i++) {
    const res = await app.inject({
      method: 'POST',
      url: '/api/test',
      headers: { authorization: admin },
      payload: { foo: `slow${i}`, fulltext: 'a'.repeat(50_000) }
    })
    t.equal(res.statusCode, 200, res.body.slice(0, 200))
    ids.push(res.json().data._id)
  }
  return ids
}

const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

/** Polls `probe` until it returns true (at most `tries` times, 100 ms apart); returns its last answer. */
async function eventually(probe: () => Promise<boolean>, tries = 300): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await probe()) return true
    await sleep(100)
  }
  return false
}

/** The app's running statements (their text and how long they have run), seen from another connection. */
function activeStatements(t: Test, app: FastifyInstance): () => Promise<Array<{ query: string; seconds: number }>> {
  const sql = postgres(app.config.databaseUrl, { max: 1, onnotice: () => {} })
  t.teardown(() => sql.end())
  return async () =>
    (await sql`SELECT left(query, 200) AS query, extract(epoch FROM now() - query_start)::float AS seconds
        FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = 'quire' AND state = 'active'`) as unknown as Array<{
      query: string
      seconds: number
    }>
}

for (const engine of ENGINES) {
  t.test(`bounded requests on ${engine}`, async t => {
    const { app, admin } = await createTestApp(t, engine, { statementTimeoutMs: 1000 })
    const ids = await insertSlowDocs(t, app, admin, 3)

    t.test("the audit's regular expressions are refused", async t => {
      await app.inject({
        method: 'POST',
        url: '/api/link',
        headers: { authorization: admin },
        payload: { name: 'abc'.repeat(25) + 'x' }
      })
      for (let i = 0; i < 2; i++) {
        const res = await app.inject({ url: '/api/link?filter[name]=$regex:(a%7B1,255%7D)%7B1,255%7D' })
        t.equal(res.statusCode, 400, `nested repetition, request ${i + 1}`)
        t.match(res.json(), { code: 'INVALID_REGEX', message: /too large once its repetitions are expanded/ })
      }
      const backref = await app.inject({
        method: 'POST',
        url: '/query/link',
        payload: { query: { name: { $regex: '(.*)(.*)(.*)(.*)\\4\\3\\2\\1$' } } }
      })
      t.equal(backref.statusCode, 400)
      t.match(backref.json(), { code: 'INVALID_REGEX', message: /Back references/ })
      const list = await app.inject({ url: '/api/link' })
      t.equal(list.statusCode, 200, 'the server keeps serving')
      t.equal(list.json().count, 1)
    })

    t.test('a slow statement is answered QUERY_TIMEOUT, and the server keeps serving', async t => {
      for (let i = 0; i < 2; i++) {
        const slow = await app.inject(SLOW_QUERY)
        t.equal(slow.statusCode, 504, `slow request ${i + 1}`)
        t.match(slow.json(), { code: 'QUERY_TIMEOUT' })
      }
      const read = await app.inject({ url: `/api/test/${ids[0]}` })
      t.equal(read.statusCode, 200, 'a read by id works afterwards')
      t.equal(read.json().data.foo, 'slow0', 'and finds the data stored before')
      t.equal((await app.inject({ url: '/count/test' })).json().count, 3)
    })
  })
}

t.test('a client that leaves cancels its running statement on postgres', async t => {
  const { app, admin } = await createTestApp(t, 'postgres', { statementTimeoutMs: 600_000 })
  await insertSlowDocs(t, app, admin, 5)
  const active = activeStatements(t, app)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const req = httpRequest({
    port: (app.server.address() as { port: number }).port,
    host: '127.0.0.1',
    path: SLOW_QUERY.url,
    method: 'POST',
    headers: { 'content-type': 'application/json' }
  })
  req.on('error', () => {})
  req.end(JSON.stringify(SLOW_QUERY.payload))
  t.ok(await eventually(async () => (await active()).length === 1), 'the slow statement runs')
  req.destroy()
  const stopped = await eventually(async () => (await active()).length === 0)
  t.ok(stopped, 'it stops long before its minutes of work are done', { running: stopped ? [] : await active() })
})

t.test('simple reads keep flowing while expensive statements hold their slots on postgres', async t => {
  // The slots alone: without the quick lane, whose first tries would add a connection's worth
  // (test/storage/postgres/postgres-quick-lane.test.ts).
  const { app, admin } = await createTestApp(t, 'postgres', {
    statementTimeoutMs: 600_000,
    pgPoolSize: 4,
    expensiveQuerySlots: 2,
    expensiveQuerySlotsPerClient: 2,
    quickStatementMs: 0
  })
  const ids = await insertSlowDocs(t, app, admin, 2)
  const active = activeStatements(t, app)
  let finished = 0
  const slow = Array.from({ length: 8 }, () =>
    app.inject(SLOW_QUERY).then(res => {
      finished++
      return res
    })
  )
  t.ok(await eventually(async () => (await active()).length === 2), 'two expensive statements run')
  for (let i = 0; i < 10; i++) {
    const read = await app.inject({ url: `/api/test/${ids[i % 2]}`, headers: { authorization: admin } })
    t.equal(read.statusCode, 200, `read ${i + 1} by id`)
  }
  t.equal(finished, 0, 'every read completed while the expensive requests were still running or waiting')
  t.equal((await active()).length, 2, 'the other six wait for a slot instead of taking a connection')
  const admin2 = postgres(app.config.databaseUrl, { max: 1, onnotice: () => {} })
  t.teardown(() => admin2.end())
  while (finished < slow.length) {
    await admin2`SELECT pg_cancel_backend(pid) FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = 'quire' AND state = 'active'`
    await sleep(100)
  }
  for (const res of await Promise.all(slow)) t.match(res.json(), { code: 'QUERY_TIMEOUT' }, 'cancelled')
})

t.test(
  'an expensive request that cannot get its turn in time is answered 503 with Retry-After on postgres',
  async t => {
    // One slot: the second request waits for it behind the first, which holds it for its whole budget.
    const budgetMs = 3000
    const { app, admin } = await createTestApp(t, 'postgres', {
      statementTimeoutMs: budgetMs,
      pgPoolSize: 4,
      expensiveQuerySlots: 1,
      expensiveQuerySlotsPerClient: 1,
      quickStatementMs: 0
    })
    await insertSlowDocs(t, app, admin, 5) // minutes of work: far past the budget
    const active = activeStatements(t, app)
    // not shared with the first
    const another = { ...SLOW_QUERY, payload: { query: { fulltext: { $regex: '(?=a*y)' } } } }
    const first = app.inject(SLOW_QUERY)
    // The second is sent once the first holds the slot (not after a time a loaded machine may not keep).
    t.ok(await eventually(async () => (await active()).length === 1, 1000), 'the first runs')
    const sent = performance.now()
    const second = await app.inject(another)
    t.match((await first).json(), { code: 'QUERY_TIMEOUT' }, 'the first held the slot for its whole budget')
    t.equal(
      second.statusCode,
      503,
      `the second got its turn with under a quarter of its budget left, or none: not started ` +
        `(sent ${Math.round(performance.now() - sent)} ms before its answer)`
    )
    t.match(second.json(), { code: 'UNAVAILABLE' })
    t.equal(second.headers['retry-after'], '1', 'a client is told when to retry')
  }
)
