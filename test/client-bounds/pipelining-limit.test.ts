// Requests in flight per connection. Found by an outside review: connections pipelining requests
// and never reading the answers made the server hold every answer (memory 0.9 -> 2.1 GB, a 40 s
// outage). A connection with more than LIMITS.requestsInFlightPerConnection in flight is closed,
// having cost the server at most that many answers; a client that pipelines a few is served.
import t from 'tap'
import { connect } from 'node:net'
import { createServer } from 'node:http'
import { boundRequestsInFlight } from '../../plugins/in-flight-limits.ts'
import { LIMITS } from '../../src/validation/limits.ts'
import { ENGINES, createTestApp } from '../helpers/test-app.ts'
import { listen } from '../helpers/feed-app.ts'

/**
 * Writes `count` pipelined copies of `request` at once (from `localAddress`); resolves with what came back and whether
 * the server closed the connection, reading only when `read`.
 */
async function pipeline(
  base: string,
  request: string,
  count: number,
  read: boolean,
  localAddress?: string
): Promise<{ answers: number; closedByServer: boolean }> {
  const { hostname, port } = new URL(base)
  const socket = connect({ port: Number(port), host: hostname, localAddress })
  socket.on('error', () => {})
  await new Promise(resolve => socket.once('connect', resolve))
  let text = ''
  if (read)
    socket.on('data', chunk => {
      text += String(chunk)
    })
  else socket.pause()
  socket.write(request.repeat(count))
  const closedByServer = await new Promise<boolean>(resolve => {
    socket.once('close', () => resolve(true))
    setTimeout(() => resolve(false), read ? 5000 : 20_000)
  })
  socket.destroy()
  return { answers: (text.match(/HTTP\/1\.1 200/g) ?? []).length, closedByServer }
}

t.test('requests beyond the bound never reach the application', async t => {
  // Node parses a whole chunk of pipelined requests at once; before the bound stood in front of
  // Fastify, every one of them became a Fastify request (and ran its hooks) before being dropped.
  let seen = 0
  const server = createServer(() => {
    seen++ // never answered: every request stays in flight
  })
  let closed = 0
  boundRequestsInFlight(server, { limit: 32, shutOutMs: 0, onClosed: () => closed++ })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => server.close())
  const { port } = server.address() as { port: number }
  const flood = await pipeline(`http://127.0.0.1:${port}`, 'GET / HTTP/1.1\r\nhost: x\r\n\r\n', 2000, false)
  t.ok(flood.closedByServer, 'the connection is closed')
  t.equal(seen, 32, 'the application saw the bound of requests, not the 2000 sent')
  t.equal(closed, 1, 'and was told once')
})

t.test(
  'a client whose connection broke the bound has its next connections closed for a while; others are served',
  async t => {
    const server = createServer((_request, response) => response.end('ok'))
    boundRequestsInFlight(server, { limit: 4, shutOutMs: 600_000, onClosed: () => {} })
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    t.teardown(() => server.close())
    const { port } = server.address() as { port: number }
    const base = `http://127.0.0.1:${port}`
    const get = 'GET / HTTP/1.1\r\nhost: x\r\n\r\n'
    t.equal((await pipeline(base, get, 2, true)).answers, 2, 'before: served')
    t.ok((await pipeline(base, get, 2000, true)).closedByServer, 'a flood of pipelined requests is closed')
    const again = await pipeline(base, get, 1, true, '127.0.0.1')
    t.same(again, { answers: 0, closedByServer: true }, 'the same client is closed at once, unanswered')
    const other = await pipeline(base, get, 1, true, '127.0.0.2')
    t.equal(other.answers, 1, 'another address is served')
  }
)

for (const engine of ENGINES) {
  t.test(`pipelined requests per connection on ${engine}`, async t => {
    const { app, admin } = await createTestApp(t, engine, { maxEventLoopDelayMs: 0 })
    const base = await listen(app)
    const body = '{"name":"piped"}'
    const create =
      `POST /api/link HTTP/1.1\r\nhost: x\r\nauthorization: ${admin}\r\ncontent-type: ` +
      `application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`
    const few = await pipeline(base, 'GET /health HTTP/1.1\r\nhost: x\r\n\r\n', 8, true)
    t.equal(few.answers, 8, `a few pipelined requests are all answered: ${JSON.stringify(few)}`)
    t.notOk(few.closedByServer, 'and the connection stays open')
    const flood = await pipeline(base, create, 2000, false)
    t.ok(flood.closedByServer, 'a connection pipelining thousands of requests without reading is closed')
    const count = JSON.parse(
      (await app.inject({ url: '/count/link?filter[name]=piped', headers: { authorization: admin } })).body
    ).count as number
    t.ok(
      count <= LIMITS.requestsInFlightPerConnection + 1,
      `the server handled at most its bound of them (${count} of 2000)`
    )
  })
}
