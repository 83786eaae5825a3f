// The MCP server at /mcp through the SDK's own client against a listening server, on
// PostgreSQL: tools listed (writes only with MCP_WRITES), each tool called, the caller's
// permissions applied as REST applies them (anonymous, owner-only, a denied write), the
// validation step's refusals, bounded results with their truncation marker, bad credentials.
import t from 'tap'
import { mkdtempSync, writeFileSync, copyFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ENGINES, basicAuth, createTestApp } from '../helpers/test-app.ts'
import { listen, send } from '../helpers/feed-app.ts'
import { connectMcp } from '../helpers/mcp-client.ts'
import { MCP_LIMITS, STRING_MARK } from '../../src/mcp/bound-output.ts'
import { MCP_MAX_BATCH } from '../../routes/mcp.ts'

const models = mkdtempSync(join(tmpdir(), 'quire-mcp-models-'))
for (const name of ['test', 'link'])
  copyFileSync(new URL(`../../models/${name}.json`, import.meta.url), join(models, `${name}.json`))
writeFileSync(
  join(models, 'note.json'),
  JSON.stringify({
    name: 'note',
    fields: { text: { type: 'string' }, n: { type: 'number' } },
    perms: { admin: 'crud', owner: 'crud', user: 'c' }
  })
)

const READ_TOOLS = ['aggregate', 'count', 'describe_model', 'export_csv', 'find', 'list_models']

for (const engine of ENGINES) {
  t.test(`MCP server on ${engine}`, async t => {
    const { app, admin, createUser } = await createTestApp(t, engine, {
      maxEventLoopDelayMs: 0,
      modelsDir: models,
      mcpWrites: true,
      corsOrigins: ['https://front.example']
    })
    const base = await listen(app)
    await createUser('alice@example.com', 'alice-password')
    await createUser('bob@example.com', 'bob-password')
    const alice = basicAuth('alice@example.com', 'alice-password')
    const bob = basicAuth('bob@example.com', 'bob-password')
    for (const [who, n] of [
      [alice, 1],
      [alice, 2],
      [alice, 3],
      [bob, 4]
    ] as const)
      await send(app, who, 'POST', '/api/note', { text: `note ${n}`, n })
    await send(app, admin, 'POST', '/api/test', { foo: 'long', bar: 'x'.repeat(5000), password: 'hunter22' })

    t.test('anonymous: what anonymous REST sees, and no more', async t => {
      const mcp = await connectMcp(base)
      t.teardown(() => mcp.close())
      const rest = (await app.inject({ method: 'GET', url: '/model' }))
        .json()
        .map((m: { model: string }) => m.model)
        .sort()
      const listed = (await mcp.call('list_models')).body.data.map((m: { model: string }) => m.model).sort()
      t.strictSame(listed, rest, 'list_models: the models GET /model shows anonymous callers')
      t.notOk(listed.includes('note'), 'not the owner-only model')
      t.match(
        await mcp.call('find', { model: 'note' }),
        { isError: true, body: { error: 'AUTH_REQUIRED', status: 401 } },
        'find on it: the error REST gives'
      )
      t.match(
        await mcp.call('create', { model: 'note', document: { text: 'spam' } }),
        { isError: true, body: { error: 'AUTH_REQUIRED' } },
        'create: refused'
      )
      t.equal((await send(app, admin, 'GET', '/count/note')).count, 4, 'nothing was created')
    })

    t.test('an owner reads only her documents: find, count, aggregate, describe', async t => {
      const mcp = await connectMcp(base, alice)
      t.teardown(() => mcp.close())
      t.strictSame(
        (await mcp.client.listTools()).tools.map(tool => tool.name).sort(),
        [...READ_TOOLS, 'create', 'delete', 'update'].sort(),
        'read and write tools (MCP_WRITES=true)'
      )
      const found = await mcp.call('find', {
        model: 'note',
        filter: { n: { $gte: 2 } },
        sort: '-n',
        fields: ['n'],
        limit: 1,
        page: 2
      })
      t.notOk(found.isError)
      t.strictSame(
        found.body.data.map((d: Record<string, unknown>) => [d.n, d.text]),
        [[2, undefined]],
        'filter, sort, fields and paging, on her notes only'
      )
      t.equal(found.body.count, 2, 'the count of the whole match')
      t.strictSame(
        (await mcp.call('count', { model: 'note', filter: { n: { $lte: 4 } } })).body,
        { count: 3 },
        "count: her three notes, not bob's"
      )
      const grouped = await mcp.call('aggregate', {
        model: 'note',
        pipeline: [{ $group: { _id: null, total: { $sum: '$n' } } }]
      })
      t.equal(grouped.body.data[0].total, 6, 'aggregate over her notes only (1 + 2 + 3)')
      t.match(
        await mcp.call('describe_model', { model: 'note' }),
        { isError: false, body: { data: { model: 'note', letters: 'c', fields: { text: { type: 'string' } } } } },
        'describe_model'
      )
      t.match(
        await mcp.call('find', { model: 'test', filter: { password: 'hunter22' } }),
        { isError: true, body: { error: 'INVALID_FIELD' } },
        "a filter on a password field: the validation step's refusal"
      )
      t.match(
        await mcp.call('find', { model: 'note', filter: { $where: 'sleep(1000)' } }),
        { isError: true, body: { status: 400 } },
        'an operator the validation step refuses'
      )
      t.match(
        await mcp.call('describe_model', { model: 'nope' }),
        { isError: true, body: { error: 'MODEL_NOT_FOUND' } },
        'an unknown model'
      )
      const csv = await mcp.call('export_csv', { model: 'note', fields: ['n'], sort: 'n' })
      t.notOk(csv.isError)
      t.match(
        csv.body,
        /^_id,n\r\n[0-9a-f]{24},1\r\n[0-9a-f]{24},2\r\n[0-9a-f]{24},3\r\n$/,
        'export_csv: her notes only, as CSV text'
      )
    })

    t.test('bounded results, with a truncation marker', async t => {
      const mcp = await connectMcp(base, admin)
      t.teardown(() => mcp.close())
      const { body } = await mcp.call('find', { model: 'test', filter: { foo: 'long' } })
      t.equal(body.data[0].bar.length, MCP_LIMITS.stringChars + STRING_MARK.length, 'a long string is cut')
      t.ok(body.data[0].bar.endsWith(STRING_MARK), 'and ends with the marker')
      t.match(body.truncated, { stringsShortened: 1, reason: /shortened/ }, 'the result says what was cut')
      t.notOk('password' in body.data[0], 'no password field')
      t.match(
        await mcp.call('find', { model: 'test', limit: MCP_LIMITS.rows + 1 }),
        { isError: true },
        "more rows than the limit: refused by the tool's schema"
      )
      const pipeline = [{ $project: { foo: 1 } }, { $limit: 1000 }]
      for (let i = 0; i < MCP_LIMITS.rows + 5; i++) await send(app, admin, 'POST', '/api/test', { foo: `f${i}` })
      const many = (await mcp.call('aggregate', { model: 'test', pipeline })).body
      t.equal(many.data.length, MCP_LIMITS.rows, `an aggregation returns at most ${MCP_LIMITS.rows} rows`)
      t.match(many.truncated, { rowsOmitted: 6, reason: /rows omitted/ }, 'and says how many it left out')
    })

    t.test("writes through the document services, with the caller's rights", async t => {
      const mcp = await connectMcp(base, alice)
      t.teardown(() => mcp.close())
      const created = await mcp.call('create', { model: 'note', document: { text: 'via mcp', n: 10 } })
      t.match(
        created,
        { isError: false, body: { data: { message: 'note created', document: { text: 'via mcp', n: 10 } } } },
        'create'
      )
      const id = created.body.data.document._id as string
      t.match(
        await mcp.call('update', { model: 'note', id, fields: { n: 11 } }),
        { body: { data: { document: { n: 11 } } } },
        'update'
      )
      t.match(
        await mcp.call('create', { model: 'note', document: { n: 'not a number' } }),
        { isError: true, body: { status: 400 } },
        'an invalid document: the REST error'
      )
      const bobs = await connectMcp(base, bob)
      t.teardown(() => bobs.close())
      t.match(
        await bobs.call('update', { model: 'note', id, fields: { n: 0 } }),
        { isError: true, body: { error: 'DOCUMENT_NOT_FOUND' } },
        "bob cannot update alice's note"
      )
      t.match(
        await bobs.call('delete', { model: 'note', id }),
        { isError: true, body: { error: 'DOCUMENT_NOT_FOUND' } },
        'nor delete it'
      )
      t.match(await mcp.call('delete', { model: 'note', id }), { isError: false }, 'she can')
      t.equal(
        (await app.inject({ method: 'GET', url: `/api/note/${id}`, headers: { authorization: alice } })).statusCode,
        404,
        'it is gone'
      )
    })

    t.test('the transport: bad credentials, GET, oversized bodies', async t => {
      await t.rejects(
        connectMcp(base, basicAuth('alice@example.com', 'wrong-password')),
        'bad credentials: the client cannot connect'
      )
      t.equal((await fetch(`${base}/mcp`)).status, 405, 'GET /mcp: 405 (stateless, no server-initiated streams)')
      const big = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(2_000_000) } })
      })
      t.equal(big.status, 413, 'a body over the limit: 413')
      const call = (id: number): object => ({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'count', arguments: { model: 'test' } }
      })
      const batch = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(Array.from({ length: MCP_MAX_BATCH + 1 }, (_, i) => call(i)))
      })
      t.equal(batch.status, 400, `a batch of more than ${MCP_MAX_BATCH} messages: 400, no tool runs`)
      const answered = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          origin: 'https://front.example'
        },
        body: JSON.stringify(call(1))
      })
      t.equal(answered.status, 200, 'a call the transport answers itself')
      t.equal(
        answered.headers.get('x-content-type-options'),
        'nosniff',
        'with the security headers every other answer has'
      )
      t.equal(
        answered.headers.get('access-control-allow-origin'),
        'https://front.example',
        "and CORS's, for a front end of an allowed origin"
      )
    })
  })

  t.test(`MCP server without MCP_WRITES on ${engine}`, async t => {
    const { app, admin } = await createTestApp(t, engine, { maxEventLoopDelayMs: 0, modelsDir: models })
    const mcp = await connectMcp(await listen(app), admin)
    t.teardown(() => mcp.close())
    t.strictSame(
      (await mcp.client.listTools()).tools.map(tool => tool.name).sort(),
      READ_TOOLS,
      'only the read tools, even for an admin'
    )
    t.match(
      await mcp.call('create', { model: 'note', document: { text: 'x' } }),
      { isError: true },
      'create is not a tool'
    )
  })
}
