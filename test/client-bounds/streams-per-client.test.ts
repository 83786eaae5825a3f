// One notion of a client for every per-client bound: an IPv6 address counts by its /64, behind
// TRUST_PROXY's proxies too. Found by an outside review: change streams, WebSocket connections,
// CSV exports and expensive statements counted the exact address, so one IPv6 host was unbounded.
import t, { type Test } from 'tap'
import WebSocket from 'ws'
import { ENGINES, createTestApp } from '../helpers/test-app.ts'
import { FEED_SETTINGS, listen } from '../helpers/feed-app.ts'
import { openSse } from '../helpers/sse-client.ts'

/** The status of a WebSocket upgrade from `forwardedFor`; the socket stays open when it succeeded. */
async function upgrade(t: Test, url: string, forwardedFor: string): Promise<number> {
  const ws = new WebSocket(url, { headers: { 'x-forwarded-for': forwardedFor } })
  ws.on('error', () => {})
  t.teardown(() => ws.terminate())
  return await new Promise<number>(resolve => {
    ws.once('open', () => resolve(101))
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
  })
}

for (const engine of ENGINES) {
  t.test(`streams and sockets count per /64, behind a trusted proxy, on ${engine}`, async t => {
    const { app } = await createTestApp(t, engine, {
      ...FEED_SETTINGS,
      trustProxy: true,
      changesMaxStreamsPerClient: 1
    })
    const base = await listen(app)
    const sse = async (forwardedFor: string): Promise<number> => {
      const stream = await openSse(`${base}/changes/test`, { 'x-forwarded-for': forwardedFor })
      t.teardown(() => stream.close())
      return stream.status
    }
    t.equal(await sse('2001:db8:0:1::1'), 200, 'a first stream')
    t.equal(await sse('2001:db8:0:1::2'), 503, 'another address of the same /64 is the same client')
    t.equal(await sse('2001:db8:0:2::1'), 200, 'another /64 is another client')
    const ws = `${base.replace('http', 'ws')}/websocket`
    t.equal(await upgrade(t, ws, '2001:db8:0:3::1'), 101, 'a first socket')
    t.equal(await upgrade(t, ws, '2001:db8:0:3::2'), 503, 'a second from the same /64 is refused')
    t.equal(await upgrade(t, ws, '2001:db8:0:4::1'), 101, 'another /64 is another client')
  })
}
