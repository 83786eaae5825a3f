// A statement planned for its values (a filter on a field without an index of its own) is sent
// unnamed with its values in one round trip: postgres.js used to ask the server for the
// parameters' types first, a second round trip on every such list (+120 us of server CPU per
// request). The values must arrive as they do in a prepared statement. PostgreSQL only.
import t from 'tap'
import { openPostgres } from '../../../src/storage/postgres/postgres-client.ts'
import { databaseUrl } from '../../helpers/test-app.ts'
import { startTcpProxy } from '../../helpers/tcp-proxy.ts'

const TEXT =
  'SELECT $1::text AS s, $2::int + 1 AS n, $3::boolean AS b, $4::text IS NULL AS missing, $5::text::jsonb AS j'
const VALUES = ["it's \\ ünïcode", 41, true, null, '{"a":[1,"x"]}']
const EXPECTED = { s: "it's \\ ünïcode", n: 42, b: true, missing: true, j: { a: [1, 'x'] } }

t.test('a statement planned for its values takes one round trip and keeps its values', async t => {
  const proxy = await startTcpProxy(await databaseUrl('postgres'))
  const client = openPostgres(proxy.url, 10_000, { poolSize: 1 })
  t.teardown(async () => {
    await client.close()
    await proxy.close()
  })
  await client.query('SELECT 1', [], { cost: 'simple' }) // the connection is open and set up

  const before = proxy.chunksFromClients()
  const [row] = await client.query(TEXT, VALUES, { cost: 'simple', planForValues: true })
  t.equal(proxy.chunksFromClients() - before, 1, 'one message batch from the client (Parse, Bind and Execute together)')
  t.same(row, EXPECTED)

  const [prepared] = await client.query(TEXT, VALUES, { cost: 'simple' })
  t.same(prepared, row, 'the same values as through a prepared statement')
})
