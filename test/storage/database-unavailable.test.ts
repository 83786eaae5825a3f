// A PostgreSQL server that goes away (port closed, connections cut, or a server
// that accepts and never answers) gets 503 UNAVAILABLE with a clear message on
// every endpoint, never a 500 or a hang, and Quire serves again as soon as the
// database is back, without a restart.
import t from 'tap'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { createTestApp, databaseUrl } from '../helpers/test-app.ts'
import { startTcpProxy } from '../helpers/tcp-proxy.ts'
import { json } from '../helpers/auth-helpers.ts'
import { answerWithin, type Answer } from '../helpers/answer-within.ts'
import { isDatabaseUnavailable } from '../../src/storage/database-unavailable.ts'
import { startSuiteCluster } from '../../reliability/pg-control.ts'

const HANG_MS = 10_000

/** The reply, or a rejection when none came within HANG_MS. */
const answer = (app: FastifyInstance, request: InjectOptions): Promise<Answer> => answerWithin(app, request, HANG_MS)

t.test('postgres', async t => {
  const proxy = await startTcpProxy(await databaseUrl('postgres'))
  t.teardown(() => proxy.close())
  const { app, admin } = await createTestApp(t, 'postgres', { databaseUrl: proxy.url, statementTimeoutMs: 1000 })
  const created = await app.inject({
    method: 'POST',
    url: '/api/test',
    headers: { authorization: admin },
    payload: { foo: 'x' }
  })
  const id = json(created).data._id as string
  const requests: InjectOptions[] = [
    { method: 'GET', url: '/api/test' },
    { method: 'GET', url: `/api/test/${id}` },
    { method: 'POST', url: '/api/test', headers: { authorization: admin }, payload: { foo: 'y' } },
    { method: 'PUT', url: `/api/test/${id}`, headers: { authorization: admin }, payload: { foo: 'z' } },
    { method: 'GET', url: '/count/test' },
    { method: 'POST', url: '/aggregate/test', payload: [{ $match: {} }] },
    { method: 'POST', url: '/login', payload: { email: 'admin@example.com', password: 'admin-password' } }
  ]

  for (const mode of ['refuse', 'blackhole'] as const) {
    t.test(`database ${mode === 'refuse' ? 'down' : 'not answering'}: 503 on every endpoint`, async t => {
      await proxy.setMode(mode)
      for (const request of requests) {
        const reply = await answer(app, request)
        t.equal(reply.status, 503, `${request.method} ${request.url}`)
        t.same(reply.body, {
          status: 'error',
          code: 'UNAVAILABLE',
          message: 'The database cannot be reached at the moment: try again in a few seconds'
        })
        t.equal(reply.retryAfter, '5')
      }
    })
  }

  t.test('the database is back: requests succeed without a restart', async t => {
    await proxy.setMode('forward')
    t.equal((await answer(app, { method: 'GET', url: `/api/test/${id}` })).status, 200)
    t.equal((await answer(app, requests[2])).status, 200)
  })
})

t.test('postgres restarted under load: every connection of the pool comes back at once', async t => {
  const cluster = await startSuiteCluster()
  t.teardown(() => cluster.stop())
  const { app } = await createTestApp(t, 'postgres', {
    databaseUrl: await cluster.createDatabase('quire_restart'),
    statementTimeoutMs: 1000
  })
  const burst = async (): Promise<number[]> =>
    (await Promise.all(Array.from({ length: 30 }, () => answer(app, { method: 'GET', url: '/api/test' })))).map(
      r => r.status
    )
  t.same(new Set(await burst()), new Set([200]), 'the pool is warm')
  await cluster.stopServer()
  for (let i = 0; i < 3; i++) t.same(new Set(await burst()), new Set([503]), 'down: 503, not a wait')
  await cluster.startServer()
  t.same(new Set(await burst()), new Set([200]), 'back: every request succeeds, none waits out a reconnection backoff')
})

t.test('what counts as unavailable', async t => {
  const cases: Array<[unknown, boolean]> = [
    [{ code: 'ECONNREFUSED' }, true],
    [{ code: 'ENOENT', syscall: 'connect' }, true],
    [{ code: 'ENOENT', syscall: 'open' }, false],
    [{ code: 'CONNECTION_CLOSED' }, true],
    [{ code: 'CONNECT_TIMEOUT' }, true],
    [{ code: '57P01' }, true],
    [{ code: '57P03' }, true],
    [{ code: '08006' }, true],
    [{ code: '53300' }, true],
    [{ name: 'MongoServerSelectionError' }, true],
    [{ code: '23505' }, false],
    [{ code: '57014' }, false],
    [{ code: '42P01' }, false],
    [new Error('boom'), false],
    [null, false],
    ['ECONNREFUSED', false]
  ]
  for (const [err, expected] of cases) t.equal(isDatabaseUnavailable(err), expected, JSON.stringify(err))
})
