// patches/postgres+3.4.9.patch: when a query failed while its rows were streaming (a statement
// timeout, a division by zero on the fourth row), postgres.js kept its per-connection row counter,
// and the next query on that connection resolved with its rows after that many holes:
// `rows[0]` undefined, `length` too large (porsager/postgres#1181, #1119; fix not released).
// Found by the reliability suite: GET /count answered 500 "Cannot read properties of undefined
// (reading 'n')" while other statements timed out. The counter now restarts with every result.
import t from 'tap'
import postgres from 'postgres'
import { databaseUrl } from '../helpers/test-app.ts'

t.test('a query after one that failed mid-stream gets a dense result', async t => {
  const sql = postgres(await databaseUrl('postgres'), { max: 1, onnotice: () => {} })
  t.teardown(() => sql.end())
  const failing = sql`SELECT i, 1 / (4 - i) AS boom FROM generate_series(1, 10) i`.then(
    () => 'no error',
    (err: Error) => err.message
  )
  const next = sql`SELECT x FROM generate_series(1, 5) x`
  t.equal(await failing, 'division by zero')
  const rows = await next
  t.equal(rows.length, 5, 'five rows, no holes before them')
  t.same(
    [...rows].map(r => r?.x),
    [1, 2, 3, 4, 5]
  )
  const [{ n }] = await sql`SELECT count(*)::int AS n FROM generate_series(1, 3)`
  t.equal(n, 3, 'a later count reads its first row')
})
