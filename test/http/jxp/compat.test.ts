// JXP_COMPAT=true (issue 35): where Quire's default differs from JXP on purpose but no safety is
// at stake, it answers as JXP does: 403 for missing or wrong credentials (restify's code names,
// Quire's in quire_code), unknown body fields dropped and named in X-Quire-Dropped-Fields,
// JXP's /setup answer, showDeleted for readers with JXP's message for a deleted document, 403 for
// an unexposed method, MCP refusing anonymous callers with JXP's tool names. Default unchanged.
import t from 'tap'
import { ENGINES, createTestApp } from '../../helpers/test-app.ts'
import { TEST_SETTINGS, json, login } from '../../helpers/auth-helpers.ts'

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' }
const listTools = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }

for (const engine of ENGINES) {
  t.test(`JXP_COMPAT on ${engine}`, async t => {
    const { app, admin, createUser } = await createTestApp(t, engine, { ...TEST_SETTINGS, jxpCompat: true })
    const alice = await createUser('alice@example.com', 'alice-password')
    const send = (
      method: 'GET' | 'POST' | 'PUT' | 'DELETE',
      url: string,
      headers: Record<string, string> = {},
      payload?: object
    ) => app.inject({ method, url, headers, ...(payload !== undefined && { payload }) })

    await t.test("credentials: 403, restify's codes", async t => {
      const none = await send('GET', '/api/user')
      t.equal(none.statusCode, 403)
      t.match(json(none), { code: 'Forbidden', quire_code: 'AUTH_REQUIRED' })
      t.equal((await send('GET', '/api/user', { 'x-api-key': 'invalidapikey' })).statusCode, 403)
      t.equal((await send('POST', '/login', {}, { email: 'alice@example.com', password: 'wrong' })).statusCode, 403)
      t.match(json(await send('GET', '/api/nothing', { authorization: admin })), {
        code: 'NotFound',
        quire_code: 'MODEL_NOT_FOUND'
      })
      t.equal((await send('POST', '/call/test/notExposed', { authorization: alice.auth }, {})).statusCode, 403)
    })

    await t.test('unknown body fields are dropped and named', async t => {
      const res = await send('POST', '/api/link', { authorization: alice.auth }, { name: 'n', val: 1, bar: 'Gloop' })
      t.equal(res.statusCode, 200, res.body)
      t.equal(res.headers['x-quire-dropped-fields'], 'link.bar')
      t.notOk('bar' in json(res).data)
      const put = await send(
        'PUT',
        `/api/link/${json(res).data._id}`,
        { authorization: alice.auth },
        { name: 'm', nope: 1 }
      )
      t.equal(put.headers['x-quire-dropped-fields'], 'link.nope')
      const id = json(res).data._id
      const bulk = await send('POST', '/bulkwrite/link', { authorization: alice.auth }, [
        { insertOne: { document: { name: 'b', val: 2, bar: 'Gloop' } } },
        { updateOne: { filter: { _id: id }, update: { $set: { name: 'u', 'nope.deep': 1 }, $inc: { val: 1 } } } },
        { replaceOne: { filter: { _id: id }, replacement: { name: 'r', val: 3, zap: true } } },
        JSON.parse('{"__proto__": {"document": {"bar": 1}}}')
      ])
      t.equal(bulk.statusCode, 400, 'an operation the bulk write does not know is still refused')
      const bulkOk = await send('POST', '/bulkwrite/link', { authorization: alice.auth }, [
        { insertOne: { document: { name: 'b', val: 2, bar: 'Gloop' } } },
        { updateOne: { filter: { _id: id }, update: { $set: { name: 'u', 'nope.deep': 1 }, $inc: { val: 1 } } } },
        { replaceOne: { filter: { _id: id }, replacement: { name: 'r', val: 3, zap: true } } }
      ])
      t.equal(bulkOk.statusCode, 200, bulkOk.body)
      t.equal(bulkOk.headers['x-quire-dropped-fields'], 'link.bar,link.nope.deep,link.zap', 'bulk writes too')
      const replaced = json(await send('GET', `/api/link/${id}`, { authorization: alice.auth })).data
      t.match(replaced, { name: 'r', val: 3 })
      t.notOk('zap' in replaced || 'nope' in replaced)
    })

    await t.test("showDeleted for readers; JXP's message for a deleted document", async t => {
      const doc = json(await send('POST', '/api/test', { authorization: admin }, { foo: 'gone' })).data
      await send('DELETE', `/api/test/${doc._id}`, { authorization: admin })
      const gone = await send('GET', `/api/test/${doc._id}`, { authorization: alice.auth })
      t.equal(gone.statusCode, 404)
      t.match(json(gone), { code: 'NotFound', message: `Document ${doc._id} is deleted on Test` })
      const shown = await send('GET', `/api/test/${doc._id}?showDeleted=1`, { authorization: alice.auth })
      t.equal(shown.statusCode, 200, 'alice may read (not delete) tests: JXP shows her the deleted one')
      t.equal(json(shown).data._deleted, true)
    })

    await t.test("MCP: credentials required, JXP's tool names", async t => {
      t.equal((await send('POST', '/mcp', MCP_HEADERS, listTools)).statusCode, 401)
      const { apikey } = await login(app, 'alice@example.com', 'alice-password')
      const tools = json(await send('POST', '/mcp', { ...MCP_HEADERS, 'x-api-key': apikey }, listTools))
        .result.tools.map((tool: { name: string }) => tool.name)
        .sort()
      t.same(tools, ['jxp_count', 'jxp_describe_model', 'jxp_export_csv', 'jxp_find', 'jxp_list_models'])
    })

    await t.test("JXP's /setup answer", async t => {
      const users = json(await send('GET', '/api/user?limit=1000', { authorization: admin })).data as Array<{
        _id: string
        email: string
      }>
      const last = users.find(u => u.email === 'admin@example.com')!
      for (const user of users.filter(u => u !== last))
        await send('DELETE', `/api/user/${user._id}?_permaDelete=1`, { authorization: admin })
      await send('DELETE', `/api/user/${last._id}?_permaDelete=1`, { authorization: admin })
      const res = await send('POST', '/setup', {}, { email: 'Root@Example.com', password: 'root-password' })
      t.match(json(res), { status: 'success', name: 'admin', email: 'root@example.com', _id: String })
      t.notOk('password' in json(res), 'never the password (JXP echoes it)')
    })
  })

  t.test(`without JXP_COMPAT on ${engine}: Quire's answers`, async t => {
    const { app, createUser } = await createTestApp(t, engine, TEST_SETTINGS)
    const alice = await createUser('alice@example.com', 'alice-password')
    t.match(json(await app.inject({ method: 'GET', url: '/api/user' })), { code: 'AUTH_REQUIRED' })
    t.equal((await app.inject({ method: 'GET', url: '/api/user' })).statusCode, 401)
    const res = await app.inject({
      method: 'POST',
      url: '/api/link',
      headers: { authorization: alice.auth },
      payload: { name: 'n', bar: 'x' }
    })
    t.equal(res.statusCode, 400)
    const mcp = await app.inject({ method: 'POST', url: '/mcp', headers: MCP_HEADERS, payload: listTools })
    t.ok(
      json(mcp).result.tools.some((tool: { name: string }) => tool.name === 'find'),
      "Quire's tool names, anonymous callers served"
    )
  })
}
