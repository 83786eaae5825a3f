// WebSocket message flood: 6 anonymous connections to GET /websocket send JXP `ping` messages as
// fast as the server takes them and never read a reply; a connection the server closes is opened
// again at once. Before the per-client message budget, this kept every other client's reads at 503.
import { randomBytes } from 'node:crypto'
import { type Attack, count, firstReply, lanes, openSocket, requestHead, writeWhole } from './raw-socket.ts'

const CONNECTIONS = 6
const FRAMES_PER_WRITE = 64

/** A masked text frame (clients must mask; a zero mask leaves the payload as is). */
function clientTextFrame(text: string): Buffer {
  const payload = Buffer.from(text)
  if (payload.length > 125) throw new Error('a short frame only')
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length, 0, 0, 0, 0]), payload])
}

export const websocketFlood: Attack = async run => {
  const batch = Buffer.concat(
    Array.from({ length: FRAMES_PER_WRITE }, (_, i) => clientTextFrame(JSON.stringify({ action: 'ping', msg_id: i })))
  )
  await lanes(run, CONNECTIONS, async () => {
    const socket = await openSocket(run.spec)
    if (!socket) return count(run.counts, 'connect failures')
    socket.on('error', () => {})
    const key = randomBytes(16).toString('base64')
    socket.write(
      requestHead('GET', '/websocket', {
        upgrade: 'websocket',
        connection: 'Upgrade',
        'sec-websocket-key': key,
        'sec-websocket-version': '13'
      })
    )
    const reply = await firstReply(socket)
    if (!reply.startsWith('HTTP/1.1 101')) {
      count(run.counts, `refused ${reply.slice(9, 12) || 'closed'}`)
      socket.destroy()
      return
    }
    count(run.counts, 'sockets')
    while (run.running() && (await writeWhole(socket, batch, run.over))) count(run.counts, 'messages', FRAMES_PER_WRITE)
    if (run.running()) count(run.counts, 'closed by the server')
    socket.destroy()
  })
}
