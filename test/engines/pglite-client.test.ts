// The PGlite client keeps serving whatever a statement does: the watchdog replaces a worker stuck
// past a request's budget (statements not started yet run on the new one), a worker that broke
// inside PostgreSQL is replaced, leaving clients' queued statements are dropped, an expensive
// statement's wait, and its request's before it, count against its budget (too little left:
// refused, not started), simple
// statements go first, a grown worker is recycled when idle, and close() never hangs.
import t, { type Test } from 'tap'
import { openPglite, type PgliteOptions } from '../../src/engines/pglite-client.ts'
import { runInRequestScope } from '../../src/engines/request-scope.ts'
import type { SqlClient } from '../../src/sql/sql-client.ts'
import { LIMITS } from '../../src/validation/limits.ts'

/** Runs for minutes in PGlite. */
const ENDLESS = 'SELECT count(*) AS n FROM generate_series(1, 2000000000)'

async function openClient (t: Test, options: Partial<PgliteOptions> = {}): Promise<{ client: SqlClient, logs: string[] }> {
  const logs: string[] = []
  // Expensive statements get 300 ms; waiting for a turn may take 10 s (a restart takes about 1 s).
  const client = await openPglite(undefined, { statementTimeoutMs: 10_000, expensiveTimeoutMs: 300, log: msg => logs.push(msg), ...options })
  t.teardown(() => client.close())
  await client.exec('CREATE TABLE t (k text PRIMARY KEY)')
  await client.query("INSERT INTO t VALUES ('before')")
  return { client, logs }
}

const keys = async (client: SqlClient): Promise<string[]> => (await client.query('SELECT k FROM t ORDER BY k')).map(r => r.k as string)

/**
 * One client for the scenarios with the usual budgets (opening PGlite takes seconds): each
 * scenario starts from the table holding only 'before', and leaves the client serving.
 */
let shared: Promise<{ client: SqlClient, logs: string[] }> | undefined
async function sharedClient (): Promise<{ client: SqlClient, logs: string[] }> {
  shared ??= openClient(t)
  const opened = await shared
  await opened.client.query("DELETE FROM t WHERE k <> 'before'")
  opened.logs.length = 0
  return opened
}

function inRequest<T> (work: () => Promise<T>, signal = new AbortController().signal): Promise<T> {
  return runInRequestScope({ client: '127.0.0.1', signal }, work)
}

t.test('a request\'s statement past its budget fails with 57014; the worker is replaced and keeps the data', async t => {
  const { client, logs } = await sharedClient()
  const slow = inRequest(() => client.query(ENDLESS))
  const queued = inRequest(() => client.query("INSERT INTO t VALUES ('queued') RETURNING k", [], { cost: 'simple' }))
  await t.rejects(slow, { code: '57014' }, 'QUERY_TIMEOUT once translated')
  t.same(await queued, [{ k: 'queued' }], 'a statement that had not started runs on the new worker')
  t.same(await keys(client), ['before', 'queued'], 'the scratch store kept its data across the restart')
  t.match(logs.join('\n'), /replaced because a statement ran past its 300 ms budget/)
})

t.test('an expensive statement that waited its statement timeout away is answered 503, not run', async t => {
  const { client, logs } = await openClient(t, { statementTimeoutMs: 300 })
  const first = inRequest(() => client.query(ENDLESS))
  const second = inRequest(() => client.query(ENDLESS)).then(() => ({ code: 'answered', restarted: false }),
    (err: { code?: string }) => ({ code: err.code, restarted: logs.some(line => /ran past its/.test(line)) }))
  await t.rejects(first, { code: '57014' }, 'the first runs its 300 ms')
  t.same(await second, { code: 'UNAVAILABLE', restarted: false }, 'the second waited its 300 ms STATEMENT_TIMEOUT_MS for its turn: it is answered 503 then, not after the worker\'s restart')
  await client.query('SELECT 1 AS one', [], { cost: 'simple' })
  t.equal(logs.filter(line => /ran past its/.test(line)).length, 1, 'only the first was run and cut short (seen once the new worker serves)')
})

t.test('an expensive statement whose turn comes with too little of its budget left is answered 503, not run', async t => {
  const { client, logs } = await openClient(t, { statementTimeoutMs: 1000, expensiveTimeoutMs: 1000 })
  const before = client.query('SELECT pg_sleep(0.9)') // the service's own statement holds the worker for 0.9 s
  const late = inRequest(() => client.query(ENDLESS)).then(() => 'answered', (err: { code?: string }) => err.code)
  await before
  t.equal(await late, 'UNAVAILABLE', 'its turn came with about 100 ms of its 1 s left: refused rather than started and cut short')
  await client.query('SELECT 1 AS one', [], { cost: 'simple' })
  t.same(logs, [], 'so no worker was replaced (which would stall every other statement for about a second)')
})

t.test('a request that waited before its expensive statement is answered within its statement timeout, counted from its arrival', async t => {
  const { client, logs } = await openClient(t, { statementTimeoutMs: 1000, expensiveTimeoutMs: 1000 })
  const before = client.query('SELECT pg_sleep(0.8)') // the service's own statement holds the worker for 0.8 s
  const request = runInRequestScope({ client: '127.0.0.1', signal: new AbortController().signal, startedAt: performance.now() }, async () => {
    await client.query('SELECT 1 AS one', [], { cost: 'simple' }) // like a list's size estimate: waits 0.8 s
    return await client.query(ENDLESS)
  }).then(() => 'answered', (err: { code?: string }) => err.code)
  await before
  t.equal(await request, 'UNAVAILABLE', 'about 200 ms of the request\'s 1 s were left: refused rather than started and cut short at 1.8 s')
  await client.query('SELECT 1 AS one', [], { cost: 'simple' })
  t.same(logs, [], 'and no worker was replaced')
})

t.test('without a statement timeout (STATEMENT_TIMEOUT_MS=0) a request\'s statement waits for its turn as long as it takes', async t => {
  const { client } = await openClient(t, { statementTimeoutMs: 0, expensiveTimeoutMs: 0 })
  const first = inRequest(() => client.query('SELECT pg_sleep(0.3) AS slept'))
  const second = inRequest(() => client.query('SELECT 2 AS two'))
  const simple = inRequest(() => client.query('SELECT 3 AS three', [], { cost: 'simple' }))
  t.same(await Promise.all([first, second, simple]), [[{ slept: '' }], [{ two: 2 }], [{ three: 3 }]], 'none refused as busy')
})

t.test('the service\'s own statements (no request) are not cut short', async t => {
  const { client, logs } = await sharedClient()
  // Seconds of work, far past the 300 ms a request's expensive statement gets.
  const rows = await client.query('SELECT count(*) AS n FROM generate_series(1, 5000000)')
  t.equal(Number(rows[0].n), 5000000)
  t.same(logs, [], 'no worker was replaced')
})

t.test('a transaction whose worker is replaced is lost, and rolled back', async t => {
  const { client } = await sharedClient()
  const work = inRequest(() => client.transaction(async tx => {
    await tx.query("INSERT INTO t VALUES ('in-tx')")
    await tx.query(ENDLESS)
  }))
  await t.rejects(work, { code: '57014' })
  t.same(await keys(client), ['before'], 'nothing of the transaction remains')
  t.same(await inRequest(() => client.query("SELECT 'next' AS k")), [{ k: 'next' }], 'the next statement runs')
})

t.test('PostgreSQL breaking inside PGlite (a swallowed stack overflow) fails the statement and replaces the worker', async t => {
  const { client, logs } = await sharedClient()
  const endless = Array.from({ length: 20 * LIMITS.expressionTerms }, () => '1').join(' + ')
  await t.rejects(client.query(`SELECT ${endless} AS n`), { code: '54001', message: /Maximum call stack size exceeded/ })
  t.same(await client.query('SELECT 1 AS one'), [{ one: 1 }], 'the next statement runs, on a fresh worker')
  t.same(await keys(client), ['before'])
  t.match(logs.join('\n'), /replaced because a statement broke it/)
})

t.test('a long expression runs within the worker\'s stack: three times the terms a pipeline may hold', async t => {
  const { client, logs } = await sharedClient()
  const logged = logs.length
  // PostgreSQL's own stack check stops a deeply nested value before the worker's stack runs out.
  const deep = '['.repeat(100_000) + ']'.repeat(100_000)
  await t.rejects(client.query('SELECT length($1::jsonb::text) AS n', [deep]), { code: '54001', message: /stack depth limit exceeded/ })
  // With Node's default 4 MB worker stack, PGlite broke at 1,000 to 1,500 terms.
  const terms = 3 * LIMITS.expressionTerms
  t.same(await client.query(`SELECT ${Array.from({ length: terms }, () => '1').join(' + ')} AS n`), [{ n: terms }])
  t.same(logs.slice(logged), [], 'and the worker was not replaced')
})

t.test('statements of a request whose client left are dropped before they start', async t => {
  const { client } = await sharedClient()
  const slow = inRequest(() => client.query(ENDLESS))
  const leaving = new AbortController()
  const dropped = inRequest(() => client.query("INSERT INTO t VALUES ('dropped')", [], { cost: 'simple' }), leaving.signal)
  leaving.abort(new Error('client gone'))
  await t.rejects(dropped, { message: 'client gone' })
  await t.rejects(slow, { code: '57014' })
  t.same(await keys(client), ['before'], 'the dropped insert never ran')
})

t.test('simple statements run before expensive ones that were queued first', async t => {
  // A budget the queued expensive statement does not wait away (the shared client's 300 ms it would).
  const { client } = await openClient(t, { expensiveTimeoutMs: 10_000 })
  const order: string[] = []
  const slow = inRequest(() => client.query('SELECT count(*) AS n FROM generate_series(1, 1000000)')).then(() => order.push('slow ended'))
  const expensive = inRequest(() => client.query("SELECT 'expensive' AS k")).then(() => order.push('expensive'))
  const simple = inRequest(() => client.query("SELECT 'simple' AS k", [], { cost: 'simple' })).then(() => order.push('simple'))
  await Promise.all([slow, expensive, simple])
  t.same(order, ['slow ended', 'simple', 'expensive'])
})

t.test('a steady stream of simple statements does not starve an expensive one', async t => {
  const { client } = await openClient(t, { expensiveTimeoutMs: 10_000 })
  const order: string[] = []
  // The worker is busy; the expensive statement waits in its queue, then simple ones keep arriving.
  const slow = inRequest(() => client.query('SELECT count(*) AS n FROM generate_series(1, 1000000)', [], { cost: 'simple' }))
  const expensive = inRequest(() => client.query("SELECT 'expensive' AS k")).then(() => order.push('expensive'))
  const simple = Array.from({ length: 40 }, (_, i) => inRequest(() => client.query('SELECT $1::int AS k', [i], { cost: 'simple' })).then(() => order.push(`simple ${i}`)))
  await Promise.all([slow, expensive, ...simple])
  const at = order.indexOf('expensive')
  t.ok(at > 0 && at <= 16, `simple statements ran first, but at most 16 of them overtook it (it ran after ${at})`)
})

t.test('an idle worker whose memory grew past the threshold is replaced', async t => {
  const { client, logs } = await openClient(t, { recycleBytes: 1 })
  await client.query("SELECT length(jsonb_agg(md5(g::text))::text) AS n FROM generate_series(1, 300000) g")
  await client.query('SELECT 1 AS one')
  t.match(logs.join('\n'), /replaced because its memory grew to \d+ MB while idle/)
  t.same(await keys(client), ['before'])
})

t.test('close() does not wait for a statement that never ends', async t => {
  const { client } = await sharedClient() // the last scenario: it closes the shared client
  const endless = t.rejects(client.query(ENDLESS), 'the running statement fails')
  await client.close()
  await endless
})
