// Requests running per client while other clients are active (REQUESTS_PER_CLIENT). One client
// sending requests without pause on 8 connections made another client's reads 5 times slower: now,
// while another client is active, a client runs at most its share and its other requests wait
// their turn (or are a 429 past LIMITS.requestsWaitingPerClient); a client alone is not held back.
// Requests are held running by a lock on their table, and counted where they wait for it.
// PostgreSQL only (the lock and pg_stat_activity).
import t, { type Test } from 'tap'
import type postgres from 'postgres'
import { connect, type Socket } from 'node:net'
import { request } from 'node:http'
import { createTestApp } from '../helpers/test-app.ts'
import { adminConnection, lockTable } from '../helpers/admin-connection.ts'
import { listen } from '../helpers/feed-app.ts'
import { LIMITS } from '../../src/validation/limits.ts'

const SHARE = 2
const A = '198.51.100.1'
const B = '198.51.100.2'

/** Quire's statements waiting for a lock. */
async function waitingForLock(sql: postgres.Sql): Promise<number> {
  const [row] = await sql`SELECT count(*)::int AS n FROM pg_stat_activity
    WHERE datname = current_database() AND application_name = 'quire' AND wait_event_type = 'Lock'`
  return row.n as number
}

/** Polls until `n` statements wait for the lock (fails after 30 s: a request that never started). */
async function untilWaiting(t: Test, sql: postgres.Sql, n: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if ((await waitingForLock(sql)) === n) return
    await new Promise(resolve => setTimeout(resolve, 50))
  }
  t.fail(`${n} statements never waited for the lock (${await waitingForLock(sql)} do)`)
}

/** GET `path` on a connection of its own from `localAddress`; resolves with the status (0: no answer in 30 s). */
function fetchFrom(base: string, localAddress: string, path: string, auth: string): Promise<{ status: number }> {
  const { hostname, port } = new URL(base)
  return new Promise((resolve, reject) => {
    const headers = { authorization: auth }
    const req = request({ host: hostname, port, path, localAddress, headers, agent: false }, res => {
      res.resume()
      resolve({ status: res.statusCode ?? 0 })
    })
    // An answer that never comes (a request stuck in its client's line) is status 0 after 30 s.
    req.setTimeout(30_000, () => {
      resolve({ status: 0 })
      req.destroy()
    })
    req.on('error', reject).end()
  })
}

/** A connection from `localAddress` that writes `count` pipelined GETs of `path` at once and reads nothing. */
async function pipelined(base: string, localAddress: string, path: string, auth: string, count: number) {
  const { hostname, port } = new URL(base)
  const socket: Socket = connect({ host: hostname, port: Number(port), localAddress })
  socket.on('error', () => {})
  await new Promise(resolve => socket.once('connect', resolve))
  socket.write(`GET ${path} HTTP/1.1\r\nhost: x\r\nauthorization: ${auth}\r\n\r\n`.repeat(count))
  return socket
}

t.test('fair share of running requests per client on postgres', async t => {
  const { app, admin } = await createTestApp(t, 'postgres', {
    requestsPerClient: SHARE,
    quickStatementMs: 0,
    statementTimeoutMs: 120_000,
    pgPoolSize: 10
  })
  const created = await app.inject({
    method: 'POST',
    url: '/api/test',
    headers: { authorization: admin },
    payload: { foo: 'x' }
  })
  const id = created.json().data._id as string
  const link = await app.inject({
    method: 'POST',
    url: '/api/link',
    headers: { authorization: admin },
    payload: { name: 'other table' }
  })
  const linkId = link.json().data._id as string
  const sql = adminConnection(t, app)
  const read = (remoteAddress: string, url = `/api/test/${id}`) =>
    app.inject({ method: 'GET', url, remoteAddress, headers: { authorization: admin } })

  // Until a client's quiet time has passed since its last request, it still counts as active; timers fire in order.
  const untilQuiet = () => new Promise(resolve => setTimeout(resolve, LIMITS.clientQuietMs * 2))

  t.test('a client alone runs more than its share', async t => {
    await untilQuiet() // the set-up's requests above came from the default address
    const unlock = await lockTable(sql, 'q_test')
    const reads = Array.from({ length: SHARE + 2 }, () => read(A))
    await untilWaiting(t, sql, SHARE + 2)
    await unlock()
    t.same(
      (await Promise.all(reads)).map(r => r.statusCode),
      reads.map(() => 200),
      'all answered'
    )
  })

  t.test('while another client is active, a client runs its share and the rest wait their turn', async t => {
    await untilQuiet()
    const unlock = await lockTable(sql, 'q_test')
    const other = read(B)
    await untilWaiting(t, sql, 1)
    const queued = Array.from({ length: SHARE + LIMITS.requestsWaitingPerClient + 1 }, () => read(A))
    const otherRead = await read(B, `/api/link/${linkId}`)
    t.equal(otherRead.statusCode, 200, 'the other client is served meanwhile')
    await untilWaiting(t, sql, 1 + SHARE)
    // Every request above was dispatched before the other client's read was answered.
    t.equal(await waitingForLock(sql), 1 + SHARE, 'the busy client runs only its share')
    const refused = await queued.pop()!
    t.equal(refused.statusCode, 429, 'past the requests that may wait: 429')
    t.equal(refused.json().code, 'RATE_LIMITED')
    await unlock()
    const answers = await Promise.all([other, ...queued])
    t.same(
      answers.map(r => r.statusCode),
      answers.map(() => 200),
      'the waiting requests are served in turn once the running ones end'
    )
  })

  t.test('requests on a connection that closed, pipelined behind others, leave the line', async t => {
    // Real connections: the client's address is its socket's (127.0.0.x on loopback).
    const base = await listen(app)
    await untilQuiet()
    const unlock = await lockTable(sql, 'q_test')
    const busy = '127.0.0.3'
    const other = fetchFrom(base, '127.0.0.4', `/api/test/${id}`, admin)
    await untilWaiting(t, sql, 1)
    const sockets = await Promise.all(
      [1, 2, 3].map(() => pipelined(base, busy, `/api/test/${id}`, admin, LIMITS.requestsInFlightPerConnection))
    )
    await untilWaiting(t, sql, 1 + SHARE)
    for (const socket of sockets) socket.destroy()
    await unlock()
    t.equal((await other).status, 200)
    // The other client active again (a read held by a new lock), the busy one asks once more.
    const unlockAgain = await lockTable(sql, 'q_test')
    const otherAgain = fetchFrom(base, '127.0.0.4', `/api/test/${id}`, admin)
    await untilWaiting(t, sql, 1)
    const fresh = await fetchFrom(base, busy, `/api/link/${linkId}`, admin)
    t.equal(fresh.status, 200, 'its line is empty again: the new request runs (it was a 429 while they stayed in it)')
    await unlockAgain()
    t.equal((await otherAgain).status, 200)
  })
})
