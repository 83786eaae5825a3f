// The request scope plugin: handlers (and what they call) see the scope, after a body was read
// too; its signal (made when first asked for) stays quiet for a request that completes (Fastify's own request.signal
// aborts
// once a body has been read) and aborts when the client closes its connection first. Once answered, a
// scope lets go of its request.
import t, { type Test } from 'tap'
import Fastify from 'fastify'
import { request as httpRequest } from 'node:http'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import requestScope from '../../plugins/request-scope.ts'
import { currentRequestScope, type RequestScope } from '../../src/runtime/request-scope.ts'

async function startServer(t: Test) {
  const seen: Array<{ client?: string; abortedAtEnd?: boolean }> = []
  let aborted: (reason: unknown) => void = () => {}
  let entered: () => void = () => {}
  const abortedReason = new Promise(resolve => {
    aborted = resolve
  })
  const hanging = new Promise<void>(resolve => {
    entered = resolve
  })
  const app = Fastify()
  await app.register(requestScope)
  app.post('/echo', async request => {
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
  // Asks for its signal only once the client has gone: the signal is made when first asked for.
  app.get('/late', async (_request, reply) => {
    const scope = currentRequestScope()!
    entered()
    await new Promise(resolve => reply.raw.once('close', resolve))
    aborted(scope.signal.aborted ? scope.signal.reason : 'not aborted')
    return 'too late'
  })
  // Keeps its scope, unasked, for the test to ask once the response is complete.
  let keptScope: { scope: RequestScope; closed: Promise<unknown> } | undefined
  app.get('/keep', async (_request, reply) => {
    keptScope = { scope: currentRequestScope()!, closed: new Promise(resolve => reply.raw.once('close', resolve)) }
    return 'kept'
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  return {
    port: (app.server.address() as { port: number }).port,
    seen,
    abortedReason,
    hanging,
    app,
    kept: () => keptScope!
  }
}

t.test('a request with a body sees its scope and a quiet signal to the end', async t => {
  const { port, seen, app } = await startServer(t)
  const res = await fetch(`http://127.0.0.1:${port}/echo`, {
    method: 'POST',
    body: JSON.stringify({ a: 1 }),
    headers: { 'content-type': 'application/json' }
  })
  t.same(await res.json(), { a: 1 })
  const injected = await app.inject({ method: 'POST', url: '/echo', payload: { b: 2 } })
  t.same(injected.json(), { b: 2 })
  t.same(seen, [
    { client: '127.0.0.1', abortedAtEnd: false },
    { client: '127.0.0.1', abortedAtEnd: false }
  ])
})

/** Requests `path`, leaves once its handler runs, and returns why the request's signal aborted. */
async function leaveWhileServed(t: Test, path: string): Promise<unknown> {
  const { port, abortedReason, hanging } = await startServer(t)
  const req = httpRequest({ port, host: '127.0.0.1', path })
  req.on('error', () => {})
  req.end()
  await hanging
  req.destroy()
  return await abortedReason
}

t.test('the signal aborts with CLIENT_CLOSED when the client leaves first', async t => {
  t.match(await leaveWhileServed(t, '/hang'), { code: 'CLIENT_CLOSED', status: 499 })
})

t.test('a signal first asked for after the client left is already aborted', async t => {
  t.match(await leaveWhileServed(t, '/late'), { code: 'CLIENT_CLOSED', status: 499 })
})

t.test('a signal first asked for after a complete response stays quiet', async t => {
  const { port, kept } = await startServer(t)
  const res = await fetch(`http://127.0.0.1:${port}/keep`, { headers: { connection: 'close' } })
  t.equal(await res.text(), 'kept')
  const { scope, closed } = kept()
  await closed
  t.equal(scope.signal.aborted, false)
})

t.test('a scope kept after its response lets go of the request and still names its caller', async t => {
  // A scope outlives its response in promises made in it (on Node 20, young collections keep some
  // of them): holding the request too would keep every request's objects through those collections.
  setFlagsFromString('--expose-gc')
  const collectGarbage = runInNewContext('gc') as () => void
  const app = Fastify()
  await app.register(requestScope)
  let kept: { scope: RequestScope; request: WeakRef<object> } | undefined
  let answered: () => void = () => {}
  const done = new Promise<void>(resolve => {
    answered = resolve
  })
  // After the plugin's own onResponse hook, which runs first.
  app.addHook('onResponse', async () => answered())
  app.get('/who', async request => {
    Object.assign(request, { caller: { userId: 'u1', admin: false, groups: [] } })
    kept = { scope: currentRequestScope()!, request: new WeakRef(request) }
    return 'ok'
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const { port } = app.server.address() as { port: number }
  const res = await fetch(`http://127.0.0.1:${port}/who`, { headers: { connection: 'close' } })
  t.equal(await res.text(), 'ok')
  await done
  await new Promise(resolve => setImmediate(resolve))
  collectGarbage()
  t.equal(kept!.request.deref(), undefined, 'the request was collected while its scope is held')
  t.match(kept!.scope.caller, { userId: 'u1' }, 'the scope still names its caller')
  t.equal(kept!.scope.signal.aborted, false, 'and its signal stays quiet')
})
