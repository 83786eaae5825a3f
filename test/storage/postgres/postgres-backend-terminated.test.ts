// A PostgreSQL backend that dies (pg_terminate_backend, a crash) under an expensive request, whose
// statement runs on a reserved connection: that request gets 503 UNAVAILABLE, the process lives
// (postgres.js used to throw from a timer or hang, porsager/postgres#1208) and the following
// requests succeed on reconnected connections. PostgreSQL only.
import t from 'tap'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { createTestApp } from '../../helpers/test-app.ts'
import { adminConnection, lockTable } from '../../helpers/admin-connection.ts'
import { answerWithin } from '../../helpers/answer-within.ts'

const HANG_MS = 20_000
const TEST_TIMEOUT_MS = 120_000
/**
 * Far above the time a loaded machine takes to find the waiting backend and terminate it: a statement cut by its
 * time limit first would be answered 504 QUERY_TIMEOUT, not the 503 this test is about.
 */
const STATEMENT_TIMEOUT_MS = 60_000
/** An aggregate is an expensive statement: it runs on a connection reserved for it. */
const EXPENSIVE: InjectOptions = { method: 'POST', url: '/aggregate/test', payload: [{ $match: {} }] }
const UNAVAILABLE_BODY = { status: 'error', code: 'UNAVAILABLE' }

async function until(probe: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200 && !(await probe()); i++) await new Promise(resolve => setTimeout(resolve, 50))
}

/** The statuses of requests sent one after the other: reads by id and expensive aggregates. */
async function statusesOf(app: FastifyInstance, id: string, rounds: number): Promise<number[]> {
  const statuses: number[] = []
  for (let i = 0; i < rounds; i++) {
    for (const request of [EXPENSIVE, { method: 'GET' as const, url: `/api/test/${id}` }])
      statuses.push((await answerWithin(app, request, HANG_MS)).status)
  }
  return statuses
}

t.test('postgres backends terminated under expensive requests', { timeout: TEST_TIMEOUT_MS }, async t => {
  const { app, admin } = await createTestApp(t, 'postgres', { statementTimeoutMs: STATEMENT_TIMEOUT_MS })
  const created = await app.inject({
    method: 'POST',
    url: '/api/test',
    headers: { authorization: admin },
    payload: { foo: 'x' }
  })
  const id = created.json().data._id as string
  const sql = adminConnection(t, app)
  const quireBackends = sql`SELECT pid, wait_event_type FROM pg_stat_activity
    WHERE datname = current_database() AND application_name = 'quire'`

  t.test('terminated while its statement runs: that request gets 503, the next ones succeed', async t => {
    t.equal((await answerWithin(app, EXPENSIVE, HANG_MS)).status, 200, 'warm')
    const unlock = await lockTable(sql, 'q_test')
    const pending = answerWithin(app, EXPENSIVE, HANG_MS)
    let waiting: number | undefined
    await until(async () => {
      waiting = (
        await sql`SELECT pid FROM pg_stat_activity
          WHERE datname = current_database() AND application_name = 'quire' AND wait_event_type = 'Lock'`
      )[0]?.pid
      return waiting !== undefined
    })
    t.ok(waiting, 'the expensive statement waits for the lock')
    await sql`SELECT pg_terminate_backend(${waiting!})`
    const reply = await pending
    await unlock()
    t.equal(reply.status, 503, 'the request whose backend died')
    t.match(reply.body, UNAVAILABLE_BODY)
    t.same(new Set(await statusesOf(app, id, 6)), new Set([200]), 'reads and expensive requests afterwards all succeed')
  })

  t.test('terminated while idle in the pool: requests get 200 or 503, then all succeed', async t => {
    await statusesOf(app, id, 3)
    const pids = (await quireBackends).map(row => row.pid as number)
    t.ok(pids.length > 0, 'Quire has connections open')
    await sql`SELECT pg_terminate_backend(pid) FROM unnest(${pids}::int[]) AS pid`
    const first = await statusesOf(app, id, 12)
    t.ok(
      first.every(status => status === 200 || status === 503),
      `at once: 200 or 503 only (${first.join(' ')})`
    )
    t.same(new Set(await statusesOf(app, id, 6)), new Set([200]), 'then every request succeeds')
  })
})
