// WebSocket messages per client: a burst, then a steady rate, over all of a client's connections;
// a flooding client's socket is closed (1008) while other clients carry on, and a client that
// left holds no budget. Found by an outside review: a `ping` flood from six connections had
// every other client's reads shed with 503 for as long as it lasted.
import t from 'tap'
import WebSocket from 'ws'
import { connect } from 'node:net'
import { createMessageRate } from '../../src/runtime/message-rate.ts'
import { LIMITS } from '../../src/validation/limits.ts'
import { ENGINES, createTestApp } from '../helpers/test-app.ts'
import { FEED_SETTINGS, listen } from '../helpers/feed-app.ts'

t.test('the bucket', async t => {
  let clock = 0
  const rate = createMessageRate(10, 20, () => clock)
  t.notOk(rate.take('a'), 'no connection, no budget')
  const closeA = rate.open('a')
  const closeA2 = rate.open('a')
  let taken = 0
  while (rate.take('a')) taken++
  t.equal(taken, 20, "a burst, shared by the client's connections")
  clock += 500
  t.equal([1, 2, 3, 4, 5, 6].filter(() => rate.take('a')).length, 5, 'then 10 a second')
  closeA()
  t.notOk(rate.take('a'), 'one connection closing leaves the budget as it was')
  closeA2()
  const again = rate.open('a')
  t.ok(rate.take('a'), 'the last one closing forgets the client: a new connection starts afresh')
  again()
})

/**
 * A flooder that never reads: upgrades, then writes `ping` frames (masked, as a client must) and
 * never answers the close frame. Resolves true when the server closes the TCP connection within
 * `waitMs` (ws alone waits 30 s for the answer, reading the flood all the while).
 */
async function floodWithoutReading(url: string, address: string, waitMs: number): Promise<boolean> {
  const { hostname, port } = new URL(url)
  const socket = connect(Number(port), hostname)
  socket.on('error', () => {})
  await new Promise(resolve => socket.once('connect', resolve))
  socket.write(
    `GET /websocket HTTP/1.1\r\nhost: x\r\nx-forwarded-for: ${address}\r\n` +
      'upgrade: websocket\r\nconnection: Upgrade\r\n' +
      'sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n\r\n'
  )
  await new Promise(resolve => socket.once('data', resolve))
  socket.pause()
  const ping = Buffer.from('{"action":"ping"}')
  const frame = Buffer.concat([Buffer.from([0x81, 0x80 | ping.length, 0, 0, 0, 0]), ping])
  const flood = Buffer.concat(Array.from({ length: 100 }, () => frame))
  let open = true
  const closed = new Promise<boolean>(resolve => {
    socket.once('close', () => resolve(true))
    setTimeout(() => resolve(false), waitMs)
  }).finally(() => (open = false))
  while (open && !socket.destroyed) {
    if (!socket.write(flood)) await Promise.race([new Promise(resolve => socket.once('drain', resolve)), closed])
    await new Promise(resolve => setImmediate(resolve))
  }
  socket.destroy()
  return await closed
}

for (const engine of ENGINES) {
  t.test(`a flooding client's socket is closed, others carry on, on ${engine}`, async t => {
    const { app } = await createTestApp(t, engine, { ...FEED_SETTINGS, trustProxy: true })
    const url = (await listen(app)).replace('http', 'ws') + '/websocket'
    const open = async (address: string): Promise<WebSocket> => {
      const ws = new WebSocket(url, { headers: { 'x-forwarded-for': address } })
      t.teardown(() => ws.terminate())
      await new Promise((resolve, reject) => {
        ws.once('open', resolve)
        ws.once('error', reject)
      })
      return ws
    }
    const flood = await open('198.51.100.1')
    const closed = new Promise<number>(resolve => flood.once('close', code => resolve(code)))
    for (let i = 0; i < LIMITS.socketMessageBurst * 20; i++) flood.send(JSON.stringify({ action: 'ping', msg_id: i }))
    t.equal(await closed, 1008, 'closed: policy violation')
    const calm = await open('198.51.100.2')
    const pong = await new Promise<Record<string, unknown>>(resolve => {
      calm.once('message', text => resolve(JSON.parse(String(text))))
      calm.send(JSON.stringify({ action: 'ping', msg_id: 'p' }))
    })
    t.match(pong, { result: 'pong!' }, 'another client is answered')
    t.ok(
      await floodWithoutReading(url, '198.51.100.3', 15_000),
      'a flooder that never answers the close frame is cut off, not read on for 30 s'
    )
  })
}
