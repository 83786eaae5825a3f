// Counts the source files one request runs code in (docs/architecture.md, "Three requests"):
// V8's precise coverage is reset after a warm-up request, then taken after the measured one.
// Run: npx tap test/manual/request-files.ts (PostgreSQL; starts its own throwaway cluster).
import t from 'tap'
import { Session } from 'node:inspector/promises'
import { relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createTestApp } from '../helpers/test-app.ts'
import { login } from '../helpers/auth-helpers.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const session = new Session()
session.connect()
await session.post('Profiler.enable')
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false })

/** The repository's source files (not tests, not dependencies) whose functions ran since the last call. */
async function filesRun(): Promise<string[]> {
  const { result } = await session.post('Profiler.takePreciseCoverage')
  return result
    .filter(script => script.url.startsWith('file://') && script.functions.some(f => f.ranges.some(r => r.count > 0)))
    .map(script => relative(ROOT, fileURLToPath(script.url)))
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
