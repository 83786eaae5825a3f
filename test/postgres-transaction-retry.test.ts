// Two transactions that lock the same rows in opposite orders deadlock;
// PostgreSQL aborts one of them (40P01). The PostgreSQL client runs the victim's
// transaction again, so both succeed, instead of one request failing with a 500
// (found by the reliability suite's fuzz: concurrent bulk writes). PostgreSQL
// only: PGlite has one connection and runs transactions one at a time.
import t from 'tap'
import { openPostgres } from '../src/engines/postgres-client.ts'
import { databaseUrl } from './helpers/test-app.ts'

t.test('a deadlocked transaction is run again', async t => {
  const client = openPostgres(await databaseUrl('postgres'), 10_000)
  t.teardown(() => client.close())
  await client.exec("CREATE TABLE pair (id text PRIMARY KEY, n int); INSERT INTO pair VALUES ('a', 0), ('b', 0)")
  let attempts = 0
  let bothLockedFirst: () => void
  const firstLocks = new Promise<void>(resolve => { let n = 0; bothLockedFirst = () => { if (++n === 2) resolve() } })
  const bump = (first: string, second: string): Promise<string> => client.transaction(async tx => {
    attempts++
    await tx.query('UPDATE pair SET n = n + 1 WHERE id = $1', [first])
    if (attempts <= 2) { bothLockedFirst(); await firstLocks }
    await tx.query('UPDATE pair SET n = n + 1 WHERE id = $1', [second])
    return `${first}${second}`
  })
  const results = await Promise.allSettled([bump('a', 'b'), bump('b', 'a')])
  t.same(results.map(r => r.status), ['fulfilled', 'fulfilled'], 'both transactions succeed')
  t.equal(attempts, 3, 'the deadlock victim ran once more')
  t.same(await client.query('SELECT id, n FROM pair ORDER BY id'), [{ id: 'a', n: 2 }, { id: 'b', n: 2 }], 'each committed exactly once')
})
