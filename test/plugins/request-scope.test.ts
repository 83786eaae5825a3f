// The request scope plugin: handlers (and what they call) see the scope, after a body was read
// too; its signal stays quiet for a request that completes (Fastify's own request.signal aborts
// once a body has been read) and aborts when the client closes its connection first.
import t, { type Test } from 'tap'
import Fastify from 'fastify'
import { request as httpRequest } from 'node:http'
import requestScope from '../../plugins/request-scope.ts'
import { currentRequestScope } from '../../src/engines/request-scope.ts'

async function startServer (t: Test) {
  const seen: Array<{ client?: string, abortedAtEnd?: boolean }> = []
  let aborted: (reason: unknown) => void = () => {}
  let entered: () => void = () => {}
  const abortedReason = new Promise(resolve => { aborted = resolve })
  const hanging = new Promise<void>(resolve => { entered = resolve })
  const app = Fastify()
  await app.register(requestScope)
  app.post('/echo', async (request) => {
    await new Promise(resolve => setTimeout(resolve, 20))
    const scope = currentRequestScope()
    seen.push({ client: scope?.client, abortedAtEnd: scope?.signal.aborted })
    return request.body
  })
  app.get('/hang', async () => {
    const scope = currentRequestScope()!
    scope.signal.addEventListener('abort', () => aborted(scope.signal.reason))
    entered()
    await new Promise(resolve => scope.signal.addEventListener('abort', resolve))
    return 'too late'
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  return { port: (app.server.address() as { port: number }).port, seen, abortedReason, hanging, app }
}

t.test('a request with a body sees its scope and a quiet signal to the end', async t => {
  const { port, seen, app } = await startServer(t)
  const res = await fetch(`http://127.0.0.1:${port}/echo`, { method: 'POST', body: JSON.stringify({ a: 1 }), headers: { 'content-type': 'application/json' } })
  t.same(await res.json(), { a: 1 })
  const injected = await app.inject({ method: 'POST', url: '/echo', payload: { b: 2 } })
  t.same(injected.json(), { b: 2 })
  t.same(seen, [{ client: '127.0.0.1', abortedAtEnd: false }, { client: '127.0.0.1', abortedAtEnd: false }])
})

t.test('the signal aborts with CLIENT_CLOSED when the client leaves first', async t => {
  const { port, abortedReason, hanging } = await startServer(t)
  const req = httpRequest({ port, host: '127.0.0.1', path: '/hang' })
  req.on('error', () => {})
  req.end()
  await hanging
  req.destroy()
  t.match(await abortedReason, { code: 'CLIENT_CLOSED', status: 499 })
})
