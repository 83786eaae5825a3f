// Cancelling a request's statement when its client leaves must cancel only that statement. The
// cancel request travels on a connection of its own; if the statement finishes first and its
// connection goes straight to the next request, a late cancel cuts that request's statement
// off (the reliability soak saw two innocent counts answered 400 QUERY_TIMEOUT this way, each
// as a load generator's clients left). Here new connections reach the server 300 ms late, so
// the cancel always arrives after its statement ended. PostgreSQL only.
import t from 'tap'
import { openPostgres } from '../../../src/storage/postgres/postgres-client.ts'
import { runInRequestScope } from '../../../src/runtime/request-scope.ts'
import { databaseUrl } from '../../helpers/test-app.ts'
import { startTcpProxy } from '../../helpers/tcp-proxy.ts'

t.test('a late cancel does not cut off the next statement on the same connection', async t => {
  const proxy = await startTcpProxy(await databaseUrl('postgres'))
  const client = openPostgres(proxy.url, 10_000, { poolSize: 1, expensiveSlots: 1 })
  t.teardown(async () => {
    await client.close()
    await proxy.close()
  })
  await client.query('SELECT 1') // the pool's one connection opens at full speed
  proxy.delayNewConnections(300)

  const leaving = new AbortController()
  const first = runInRequestScope({ signal: leaving.signal, client: '10.0.0.1' }, () =>
    client.query('SELECT pg_sleep(0.2)')
  )
  setTimeout(() => leaving.abort(new Error('the client went away')), 50)
  await first.catch(() => {})

  const staying = new AbortController()
  const second = runInRequestScope({ signal: staying.signal, client: '10.0.0.2' }, () =>
    client.query('SELECT pg_sleep(0.5) AS slept')
  )
  const outcome = await second.then(
    rows => rows.length,
    (err: { code?: string; message?: string }) => `${err.code}: ${err.message}`
  )
  t.equal(outcome, 1, 'the next request on the connection gets its answer')
})
