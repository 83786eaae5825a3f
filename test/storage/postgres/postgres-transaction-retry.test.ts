// Two transactions that lock the same rows in opposite orders deadlock;
// PostgreSQL aborts one of them (40P01). The PostgreSQL client runs the victim's
// transaction again, so both succeed, instead of one request failing with a 500
// (found by the reliability suite's fuzz: concurrent bulk writes).
import t from 'tap'
import { openPostgres } from '../../../src/storage/postgres/postgres-client.ts'
import { databaseUrl } from '../../helpers/test-app.ts'

t.test('a deadlocked transaction is run again', async t => {
  const client = openPostgres(await databaseUrl('postgres'), 10_000)
  t.teardown(() => client.close())
  await client.exec("CREATE TABLE pair (id text PRIMARY KEY, n int); INSERT INTO pair VALUES ('a', 0), ('b', 0)")
  let attempts = 0
  let bothLockedFirst: () => void
  const firstLocks = new Promise<void>(resolve => {
    let n = 0
    bothLockedFirst = () => {
      if (++n === 2) resolve()
    }
  })
  /** Each transaction's outcome, by its name (`ab`, `ba`), once settled. */
  const settled = new Map<string, Promise<unknown>>()
  const bump = (first: string, second: string): Promise<string> =>
    client.transaction(async tx => {
      const attempt = ++attempts
      // The victim's second run starts once the other transaction has committed. Started at once, it
      // could lock its first row before the survivor (woken by the victim's abort, but not yet run on
      // a loaded machine) takes it, and deadlock with the survivor again.
      if (attempt > 2) await settled.get(`${second}${first}`)
      await tx.query('UPDATE pair SET n = n + 1 WHERE id = $1', [first])
      if (attempt <= 2) {
        bothLockedFirst()
        await firstLocks
      }
      await tx.query('UPDATE pair SET n = n + 1 WHERE id = $1', [second])
      return `${first}${second}`
    })
  const both = [bump('a', 'b'), bump('b', 'a')]
  for (const [i, done] of both.entries())
    settled.set(
      ['ab', 'ba'][i],
      done.catch(() => {})
    )
  const results = await Promise.allSettled(both)
  t.same(
    results.map(r => r.status),
    ['fulfilled', 'fulfilled'],
    'both transactions succeed'
  )
  t.equal(attempts, 3, 'the deadlock victim ran once more')
  t.same(
    await client.query('SELECT id, n FROM pair ORDER BY id'),
    [
      { id: 'a', n: 2 },
      { id: 'b', n: 2 }
    ],
    'each committed exactly once'
  )
})
