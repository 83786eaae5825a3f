// Counts the source files one request runs code in (docs/architecture.md, "Three requests"):
// V8's precise coverage is reset after a warm-up request, then taken after the measured one.
// The change's delivery is measured from the moment another Quire process has answered the write
// to the moment the subscriber here has the event: only the delivery runs in this process.
// Run: npx tap test/manual/request-files.ts (PostgreSQL; starts its own throwaway cluster).
// REQUEST_FILES_FUNCTIONS=1 lists the functions each file ran, too.
import t from 'tap'
import { Session } from 'node:inspector/promises'
import { relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createTestApp } from '../helpers/test-app.ts'
import { login } from '../helpers/auth-helpers.ts'
import { FEED_SETTINGS, listen } from '../helpers/feed-app.ts'
import { openSse } from '../helpers/sse-client.ts'
import { startPeerProcess } from '../helpers/quire-process.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const WITH_FUNCTIONS = process.env.REQUEST_FILES_FUNCTIONS === '1'
const session = new Session()
session.connect()
await session.post('Profiler.enable')
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false })

/** The repository's source files (not tests, not dependencies) whose functions ran since the last call. */
async function filesRun(): Promise<string[]> {
  const { result } = await session.post('Profiler.takePreciseCoverage')
  return result
    .filter(script => script.url.startsWith('file://') && script.functions.some(f => f.ranges.some(r => r.count > 0)))
    .map(script => {
      const file = relative(ROOT, fileURLToPath(script.url))
      const ran = script.functions.filter(f => f.ranges[0].count > 0).map(f => f.functionName || '(anonymous)')
      return WITH_FUNCTIONS ? `${file}: ${[...new Set(ran)].join(', ')}` : file
    })
    .filter(file => !file.startsWith('node_modules/') && !file.startsWith('test/') && !file.startsWith('..'))
    .sort()
}

t.test('a list read with a filter, populate and an API key', async t => {
  const { app, createUser } = await createTestApp(t, 'postgres')
  await createUser('reader@example.com', 'reader-password')
  const { apikey } = await login(app, 'reader@example.com', 'reader-password')
  const url = `/api/test?filter[foo]=x&populate=link&apikey=${apikey}`
  await app.inject({ url })
  await filesRun()
  const res = await app.inject({ url })
  t.equal(res.statusCode, 200)
  const files = await filesRun()
  t.comment(`${files.length} files:\n${files.join('\n')}`)
})

t.test('a create with Basic auth', async t => {
  const { app, admin } = await createTestApp(t, 'postgres')
  const create = () =>
    app.inject({ method: 'POST', url: '/api/test', headers: { authorization: admin }, payload: { foo: 'x' } })
  await create()
  await filesRun()
  t.equal((await create()).statusCode, 200)
  const files = await filesRun()
  t.comment(`${files.length} files:\n${files.join('\n')}`)
})

t.test('one change delivered to a subscriber', async t => {
  const { app, admin } = await createTestApp(t, 'postgres', FEED_SETTINGS)
  const here = await listen(app)
  const there = await startPeerProcess(t, app)
  const stream = await openSse(`${here}/changes/test`, { authorization: admin })
  t.teardown(() => stream.close())
  await stream.waitFor(1)
  const writeThere = async (foo: string): Promise<number> =>
    (
      await fetch(`${there}/api/test`, {
        method: 'POST',
        headers: { authorization: admin, 'content-type': 'application/json' },
        body: JSON.stringify({ foo })
      })
    ).status
  t.equal(await writeThere('warm-up'), 200)
  await stream.waitFor(2)
  await filesRun()
  t.equal(await writeThere('measured'), 200)
  t.equal((await stream.waitFor(3))[2].json.data.foo, 'measured')
  const files = await filesRun()
  t.comment(`${files.length} files:\n${files.join('\n')}`)
})
