// The benchmark's yardstick (child process): a bare Fastify server doing one
// postgres.js primary-key lookup per request and sending the stored JSON text, and one
// insert of the posted document (with the system fields a create adds) per POST. The inserts
// go to a copy of q_test with its columns, indexes and documents (not its change-capture
// trigger: a bare insert), so that the scenarios after them read the seeded collection as it was: they
// used to read it grown by 90,000-150,000 baseline inserts, not the 10,000 documents they name.
import Fastify from 'fastify'
import postgres from 'postgres'
import { newId } from '../src/ids.ts'
import { TABLE_STORAGE } from '../src/sql/schema-ddl.ts'
import { serveUntilStopped } from './child-server.ts'

const sql = postgres(process.env.DATABASE_URL!, { max: Number(process.env.PG_POOL_SIZE ?? 10), onnotice: () => {} })
const app = Fastify({ logger: false })
// The same storage parameters as q_test (LIKE does not copy them).
await sql.unsafe(`create table if not exists q_baseline_create (like q_test including all) with (${TABLE_STORAGE})`)
// Starting from the same documents: an insert into an empty table's indexes would cost less.
await sql`insert into q_baseline_create (_id, doc) select _id, doc from q_test where not exists (select 1 from q_baseline_create)`

app.get<{ Params: { id: string } }>('/baseline/:id', async (request, reply) => {
  const rows = await sql`select doc::text as d from q_test where _id = ${request.params.id}`
  if (rows.length === 0) return reply.code(404).send({ status: 'fail', message: 'not found' })
  return reply.type('application/json; charset=utf-8').send(rows[0].d as string)
})

app.post<{ Body: Record<string, unknown> }>('/baseline', async (request, reply) => {
  const _id = newId()
  const now = new Date().toISOString()
  const doc = JSON.stringify({ ...request.body, _id, id: _id, _deleted: false, _owner_id: null, createdAt: now, updatedAt: now, __v: 0 })
  const rows = await sql`insert into q_baseline_create (_id, doc) values (${_id}, ${doc}::text::jsonb) returning doc::text as d`
  return reply.code(200).type('application/json; charset=utf-8').send(`{"status":"ok","data":${rows[0].d as string}}`)
})

await app.listen({ host: '127.0.0.1', port: 0 })
serveUntilStopped((app.server.address() as { port: number }).port, async () => {
  await app.close()
  await sql.end({ timeout: 5 })
})
