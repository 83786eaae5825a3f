// The benchmark's yardstick (child process): a bare Fastify server doing one
// postgres.js primary-key lookup per request and sending the stored JSON text, and one
// insert of the posted document (with the system fields a create adds) per POST, into
// q_baseline_create (bench/baseline-table.ts: a copy of q_test without its change capture): the
// scenarios after them used to read q_test grown by 90,000-150,000 baseline inserts.
import Fastify from 'fastify'
import postgres from 'postgres'
import { newId } from '../src/ids.ts'
import { serveUntilStopped } from './child-server.ts'

const sql = postgres(process.env.DATABASE_URL!, { max: Number(process.env.PG_POOL_SIZE ?? 10), onnotice: () => {} })
const app = Fastify({ logger: false })

app.get<{ Params: { id: string } }>('/baseline/:id', async (request, reply) => {
  const rows = await sql`select doc::text as d from q_test where _id = ${request.params.id}`
  if (rows.length === 0) return reply.code(404).send({ status: 'fail', message: 'not found' })
  return reply.type('application/json; charset=utf-8').send(rows[0].d as string)
})

app.post<{ Body: Record<string, unknown> }>('/baseline', async (request, reply) => {
  const _id = newId()
  const now = new Date().toISOString()
  const doc = JSON.stringify({
    ...request.body,
    _id,
    id: _id,
    _deleted: false,
    _owner_id: null,
    createdAt: now,
    updatedAt: now,
    __v: 0
  })
  const rows =
    await sql`insert into q_baseline_create (_id, doc) values (${_id}, ${doc}::text::jsonb) returning doc::text as d`
  return reply
    .code(200)
    .type('application/json; charset=utf-8')
    .send(`{"status":"ok","data":${rows[0].d as string}}`)
})

await app.listen({ host: '127.0.0.1', port: 0 })
serveUntilStopped((app.server.address() as { port: number }).port, async () => {
  await app.close()
  await sql.end({ timeout: 5 })
})
