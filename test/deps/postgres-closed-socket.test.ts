// patches/postgres+3.4.9.patch: a reserved connection (the expensive-statement gate reserves them)
// whose server process died threw `Cannot read properties of null (reading 'write')` from a timer,
// ending the process (porsager/postgres#1208, #1154); with only a null guard, its queries hung
// forever, and releasing it put a socketless connection back into the pool. Such queries now fail
// at once with a connection error (Quire answers 503) and the pool reconnects.
import t, { type Test } from 'tap'
import postgres from 'postgres'
import { databaseUrl } from '../helpers/test-app.ts'
import { isDatabaseUnavailable } from '../../src/storage/database-unavailable.ts'

/** Each query must settle well within this; a hang fails the test instead of stalling the run. */
const TEST_TIMEOUT_MS = 30_000

async function outcomeOf(query: Promise<unknown>): Promise<string> {
  return await query.then(
    () => 'answered',
    (err: unknown) => (isDatabaseUnavailable(err) ? 'unavailable' : `other error: ${String(err)}`)
  )
}

/** A pool with one reserved connection, its backend's pid, and a second pool to terminate it from. */
async function reserveConnection(
  t: Test
): Promise<{ sql: postgres.Sql; killer: postgres.Sql; reserved: postgres.ReservedSql; pid: number }> {
  const url = await databaseUrl('postgres')
  const sql = postgres(url, { max: 2, onnotice: () => {} })
  const killer = postgres(url, { max: 1, onnotice: () => {} })
  t.teardown(async () => {
    await sql.end({ timeout: 1 })
    await killer.end({ timeout: 1 })
  })
  const reserved = await sql.reserve()
  const [{ pid }] = await reserved`SELECT pg_backend_pid() AS pid`
  return { sql, killer, reserved, pid: pid as number }
}

t.test(
  'queries on a reserved connection whose backend died are refused, not fatal',
  { timeout: TEST_TIMEOUT_MS },
  async t => {
    const { sql, killer, reserved, pid } = await reserveConnection(t)
    await killer`SELECT pg_terminate_backend(${pid})`
    const outcomes: string[] = []
    for (let i = 0; i < 3; i++) outcomes.push(await outcomeOf(reserved`SELECT 1 AS one`))
    t.same(
      outcomes,
      ['unavailable', 'unavailable', 'unavailable'],
      'each query on the dead connection fails as unavailable'
    )
    reserved.release()
    const answers = await Promise.all([1, 2, 3, 4, 5, 6].map(n => outcomeOf(sql`SELECT ${n}::int AS n`)))
    t.same(answers, Array(6).fill('answered'), 'every query on the pool succeeds afterwards')
    const again = await sql.reserve()
    t.equal((await again`SELECT 2 AS two`)[0].two, 2, 'a new reservation works')
    again.release()
  }
)

t.test(
  'queries queued on a reserved connection settle when its backend dies',
  { timeout: TEST_TIMEOUT_MS },
  async t => {
    const { sql, killer, reserved, pid } = await reserveConnection(t)
    const slow = outcomeOf(reserved`SELECT pg_sleep(5)`)
    const queued = [1, 2, 3].map(n => outcomeOf(reserved`SELECT ${n}::int AS n`))
    await killer`SELECT pg_terminate_backend(${pid})`
    t.same(
      await Promise.all([slow, ...queued]),
      Array(4).fill('unavailable'),
      'the running and the waiting queries fail as unavailable'
    )
    reserved.release()
    t.equal((await sql`SELECT 1 AS one`)[0].one, 1, 'the pool still works')
  }
)
