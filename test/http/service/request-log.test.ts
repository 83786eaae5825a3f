// Logs you can trace: one info line per request (method, URL, route, status, time, caller id,
// request id), X-Request-Id honoured when safe and echoed on every answer (a new UUID otherwise),
// the start banner, `quire --version` and `quire serve --help` listing every setting.
import t, { type Test } from 'tap'
import { Writable } from 'node:stream'
import { join } from 'node:path'
import { buildApp } from '../../../app.ts'
import { loadConfig } from '../../../src/config.ts'
import { EnvSchema } from '../../../src/config-schema.ts'
import { packageVersion } from '../../../src/package-root.ts'
import { basicAuth, databaseUrl, QUIET_SETTINGS } from '../../helpers/test-app.ts'
import { REPO_ROOT, runCli, startServer } from '../../helpers/run-cli.ts'
import { prepareCreate } from '../../../src/documents/prepare-document.ts'
import { USER_MODEL } from '../../../src/auth/users/user-model.ts'
import { ANONYMOUS } from '../../../src/auth/caller.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

type Entry = Record<string, any>

/** An app logging at info into `entries`, with one admin user. */
async function loggedApp(
  t: Test
): Promise<{ app: Awaited<ReturnType<typeof buildApp>>; entries: Entry[]; adminId: string }> {
  const entries: Entry[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      entries.push(JSON.parse(String(chunk)))
      done()
    }
  })
  const config = {
    ...loadConfig({ DATABASE_URL: await databaseUrl('postgres') }),
    ...QUIET_SETTINGS,
    modelsDir: join(REPO_ROOT, 'models'),
    bcryptRounds: 4
  }
  const app = await buildApp({ config, logger: { level: 'info', stream } })
  t.teardown(() => app.close())
  const admin = await prepareCreate({
    model: USER_MODEL,
    body: { email: 'admin@example.com', password: 'admin-password', admin: true },
    caller: { ...ANONYMOUS, admin: true },
    form: false,
    bcryptRounds: 4
  })
  await app.db.insert(USER_MODEL, admin)
  return { app, entries, adminId: admin._id as string }
}

t.test('one line per request, with what it takes to find it again', async t => {
  const { app, entries, adminId } = await loggedApp(t)
  const before = entries.length
  const res = await app.inject({
    url: '/api/test?limit=1',
    headers: { authorization: basicAuth('admin@example.com', 'admin-password'), 'x-request-id': 'client-trace.42' }
  })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['x-request-id'], 'client-trace.42', 'a safe X-Request-Id is echoed')
  const lines = entries.slice(before)
  t.equal(lines.length, 1, 'one line')
  const [line] = lines
  t.equal(line.level, 30, 'at info')
  t.equal(line.reqId, 'client-trace.42', 'the request id')
  t.equal(line.route, '/api/:model', 'the route')
  t.equal(line.req.method, 'GET')
  t.equal(line.res.statusCode, 200, 'the status')
  t.type(line.responseTime, 'number', 'the time')
  t.equal(line.caller, adminId, "the caller's user id")
  t.match(line.msg, /^GET \/api\/test\?limit=1 200 [\d.]+ ms$/, 'a message that reads alone')
})

t.test('every answer carries a request id; unsafe ones are replaced', async t => {
  const { app, entries } = await loggedApp(t)
  const cases: Array<[string, Record<string, string>, (id: string) => boolean]> = [
    ['no X-Request-Id: a new UUID', {}, id => UUID.test(id)],
    ['one with a space or a quote: a new UUID', { 'x-request-id': 'a b"c' }, id => UUID.test(id)],
    ['a too long one: a new UUID', { 'x-request-id': 'x'.repeat(129) }, id => UUID.test(id)]
  ]
  for (const [label, headers, ok] of cases) {
    const res = await app.inject({ url: '/health', headers })
    t.ok(ok(String(res.headers['x-request-id'])), label)
  }
  const notFound = await app.inject({ url: '/api/nothing', headers: { 'x-request-id': 'r-404' } })
  t.equal(notFound.statusCode, 404)
  t.equal(notFound.headers['x-request-id'], 'r-404', 'a 404 too')
  const refused = await app.inject({ url: '/api/test?apikey=secret-value', headers: { 'x-request-id': 'r-401' } })
  t.equal(refused.statusCode, 401)
  t.equal(refused.headers['x-request-id'], 'r-401', 'a 401 too')
  const logged = entries.find(e => e.reqId === 'r-401' && e.res)
  t.equal(logged?.caller, null, 'a refused caller is no user')
  t.match(logged?.msg, /^GET \/api\/test\?apikey=\[redacted\] 401 [\d.]+ ms$/, 'credentials redacted in the message')
  t.equal(entries.filter(e => e.reqId === 'r-404').length, 1, 'one line for a 404')
})

t.test('quire --version and quire serve --help', async t => {
  const version = await runCli(['--version'], {})
  t.equal(version.code, 0)
  t.equal(version.stdout.trim(), packageVersion())
  const help = await runCli(['serve', '--help'], {})
  t.equal(help.code, 0)
  for (const name of Object.keys(EnvSchema.properties))
    t.match(help.stdout, new RegExp(`^  ${name}\\b`, 'm'), `lists ${name}`)
  t.match(help.stdout, /^ {2}PORT \(default: 3000\)\n {6}HTTP port$/m, 'with its default and meaning')
})

t.test('quire serve logs a banner: version, address, storage, models, /setup', async t => {
  const url = await databaseUrl('postgres')
  const server = await startServer({ DATABASE_URL: url, MODELS_DIR: join(REPO_ROOT, 'models') })
  t.teardown(async () => {
    server.child.kill('SIGTERM')
    await server.exited
  })
  const port = new URL(server.url).port
  const database = url.slice(url.lastIndexOf('/') + 1)
  const banner = (): Entry | undefined =>
    server.lines.map(line => JSON.parse(line) as Entry).find(e => String(e.msg).startsWith('Quire '))
  for (const started = Date.now(); banner() === undefined && Date.now() - started < 10_000; )
    await new Promise(resolve => setTimeout(resolve, 50))
  t.equal(
    banner()?.msg,
    `Quire ${packageVersion()} on http://127.0.0.1:${port} (PostgreSQL at ` +
      `127.0.0.1:${new URL(url).port}/${database}); models: link, test (+ user); ` +
      '/setup open: no user yet, create the first admin with POST /setup or `quire admin create`'
  )
  t.notMatch(JSON.stringify(server.lines), /postgres@/, 'no user name or password of the URL')
})
