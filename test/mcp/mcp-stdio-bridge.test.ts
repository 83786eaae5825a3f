// `quire mcp`, the stdio bridge, spawned as an MCP client would spawn it (the SDK's stdio client
// transport) against a listening Quire on PostgreSQL: it lists the tools and runs a
// find with the API key from QUIRE_API_KEY; without a key it acts as anonymous; with a wrong
// key the client gets the server's refusal as an error instead of a hang.
import t, { type Test } from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ENGINES, createTestApp } from '../helpers/test-app.ts'
import { listen, send } from '../helpers/feed-app.ts'
import { login } from '../helpers/auth-helpers.ts'
import { QUIRE_CLI_ARGS, REPO_ROOT } from '../helpers/run-cli.ts'

async function bridgeClient(t: Test, env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'quire-bridge-test', version: '1.0.0' })
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...QUIRE_CLI_ARGS, 'mcp'],
    cwd: REPO_ROOT,
    env: { ...process.env, ...env } as Record<string, string>,
    stderr: 'pipe'
  })
  t.teardown(() => client.close())
  await client.connect(transport)
  return client
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>): any =>
  JSON.parse((result.content as Array<{ text: string }>)[0].text)

for (const engine of ENGINES) {
  t.test(`quire mcp (stdio bridge) on ${engine}`, async t => {
    const { app, admin, createUser } = await createTestApp(t, engine, { maxEventLoopDelayMs: 0 })
    const url = await listen(app)
    await createUser('alice@example.com', 'alice-password')
    const { apikey } = await login(app, 'alice@example.com', 'alice-password')
    await send(app, admin, 'POST', '/api/test', { foo: 'through the bridge' })

    const alice = await bridgeClient(t, { QUIRE_URL: url, QUIRE_API_KEY: apikey })
    t.strictSame(
      (await alice.listTools()).tools.map(tool => tool.name).sort(),
      ['aggregate', 'count', 'describe_model', 'export_csv', 'find', 'list_models'],
      'the tools, listed through the bridge'
    )
    const found = textOf(await alice.callTool({ name: 'find', arguments: { model: 'test', fields: ['foo'] } }))
    t.strictSame(
      found.data.map((d: { foo: string }) => d.foo),
      ['through the bridge'],
      'a find'
    )
    const lettersOn = (models: Array<{ model: string; letters: string }>): string | undefined =>
      models.find(m => m.model === 'test')?.letters
    const models = textOf(await alice.callTool({ name: 'list_models', arguments: {} })).data
    t.match(lettersOn(models), /c/, 'as alice: she may create test documents (user: cr)')

    const anonymous = await bridgeClient(t, { QUIRE_URL: url, QUIRE_API_KEY: '', QUIRE_TOKEN: '' })
    const anonymousModels = textOf(await anonymous.callTool({ name: 'list_models', arguments: {} })).data
    t.equal(lettersOn(anonymousModels), 'r', 'without a credential: anonymous (all: r)')

    await t.rejects(
      bridgeClient(t, { QUIRE_URL: url, QUIRE_API_KEY: 'qak_wrong' }),
      /refused or could not be reached/,
      'a wrong key: the client hears the refusal'
    )
  })
}
