// A closed PostgreSQL client refuses every statement: postgres.js refuses queries once ended, but
// it opened a new connection for an expensive statement (one that reserves a connection of its
// own), and that connection then stayed open after close, until the server went away (found
// chasing a 57P01 "terminating connection" rejection at the end of a test file).
import t from 'tap'
import postgres from 'postgres'
import { openPostgres } from '../../../src/storage/postgres/postgres-client.ts'
import { databaseUrl } from '../../helpers/test-app.ts'

t.test('after close, statements are refused and no connection is opened', async t => {
  const url = await databaseUrl('postgres')
  const observer = postgres(url, { max: 1, onnotice: () => {} })
  t.teardown(() => observer.end())
  const connections = async (): Promise<number> =>
    (await observer`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'closed-client-test'`)[0]
      .n as number

  const client = openPostgres(url, 10_000, { applicationName: 'closed-client-test' })
  await client.query('SELECT 1', [], { cost: 'simple' })
  await client.query('SELECT 1')
  await client.close()
  t.equal(await connections(), 0, 'close ends every connection')

  const refused = async (statement: Promise<unknown>): Promise<string | undefined> =>
    await statement.then(
      () => undefined,
      (err: { code?: string }) => err.code
    )
  t.equal(
    await refused(client.query('SELECT 1', [], { cost: 'simple' })),
    'CONNECTION_ENDED',
    'a simple statement is refused'
  )
  t.equal(await refused(client.query('SELECT 1')), 'CONNECTION_ENDED', 'an expensive statement is refused')
  t.equal(await refused(client.exec('SELECT 1')), 'CONNECTION_ENDED', 'so is a script')
  t.equal(
    await refused(client.transaction(async tx => await tx.query('SELECT 1'))),
    'CONNECTION_ENDED',
    'and a transaction'
  )
  t.equal(await connections(), 0, 'and no connection was opened for them')
})
