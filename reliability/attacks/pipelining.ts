// Pipelined requests never read: 20 connections write `GET /api/test?limit=100` back to back and
// never read an answer; a connection the server closes is opened again at once. Before the bound on
// requests in flight per connection, this held every answer in memory (0.9 -> 2.1 GB) and was a
// 40 s outage.
import { type Attack, count, lanes, openSocket, requestHead, writeWhole } from './raw-socket.ts'

const CONNECTIONS = 20
const REQUESTS_PER_WRITE = 16

export const pipelining: Attack = async run => {
  const batch = requestHead('GET', '/api/test?limit=100').repeat(REQUESTS_PER_WRITE)
  await lanes(run, CONNECTIONS, async () => {
    const socket = await openSocket(run.spec)
    if (!socket) return count(run.counts, 'connect failures')
    socket.on('error', () => {})
    socket.pause()
    count(run.counts, 'connections')
    while (run.running() && (await writeWhole(socket, batch, run.over)))
      count(run.counts, 'requests', REQUESTS_PER_WRITE)
    if (run.running()) count(run.counts, 'closed by the server')
    socket.destroy()
  })
}
