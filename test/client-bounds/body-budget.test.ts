// Request bodies on their way in, per client. Found by an outside review: 500 connections each
// announcing 1 MB and sending all but the last byte held hundreds of MB until REQUEST_TIMEOUT_MS
// cut them. Past LIMITS.bodyBytesPerClient of announced bodies a client's next request is a 429
// before any of its body is read; others are not affected, and the budget returns as bodies end.
import t from 'tap'
import { connect, type Socket } from 'node:net'
import { LIMITS } from '../../src/validation/limits.ts'
import { ENGINES, createTestApp } from '../helpers/test-app.ts'
import { listen } from '../helpers/feed-app.ts'

const MB = 1024 * 1024

/**
 * A POST announcing `length` bytes of body, of which it sends only a few; resolves with the status line, if any arrives
 * within `waitMs`.
 */
async function unfinished(
  base: string,
  length: number,
  waitMs: number
): Promise<{ socket: Socket; status: Promise<string | undefined> }> {
  const { hostname, port } = new URL(base)
  const socket = connect(Number(port), hostname)
  socket.on('error', () => {})
  await new Promise(resolve => socket.once('connect', resolve))
  socket.write(
    `POST /api/link HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n{"name":"`
  )
  const status = new Promise<string | undefined>(resolve => {
    socket.once('data', chunk => resolve(String(chunk).split('\r\n')[0]))
    setTimeout(() => resolve(undefined), waitMs)
  })
  return { socket, status }
}

for (const engine of ENGINES) {
  t.test(`announced bodies per client on ${engine}`, async t => {
    const { app, admin } = await createTestApp(t, engine, { maxEventLoopDelayMs: 0 })
    const base = await listen(app)
    const fit = Math.floor(LIMITS.bodyBytesPerClient / MB)
    const held = []
    for (let i = 0; i < fit; i++) held.push(await unfinished(base, MB, 300))
    t.same(
      await Promise.all(held.map(h => h.status)),
      held.map(() => undefined),
      `${fit} unfinished 1 MB bodies are waited for`
    )
    const over = await unfinished(base, MB, 10_000)
    t.match(await over.status, /^HTTP\/1\.1 429/, 'one more from the same client is a 429 at once')
    over.socket.destroy()
    const other = await app.inject({
      method: 'POST',
      url: '/api/link',
      remoteAddress: '198.51.100.9',
      headers: { authorization: admin },
      payload: { name: 'other' }
    })
    t.equal(other.statusCode, 200, 'another client is not affected')
    for (const h of held) h.socket.destroy()
    let again: string | undefined
    for (let tries = 0; tries < 50 && again === undefined; tries++) {
      const next = await unfinished(base, MB, 200)
      again = await next.status
      next.socket.destroy()
      if (again === undefined) break
      await new Promise(resolve => setTimeout(resolve, 100))
    }
    t.equal(again, undefined, "once the client's bodies ended, its budget is back")
  })
}
