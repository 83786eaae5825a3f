// Unfinished bodies: 500 connections of the plain user each announce a 1 MB create
// (POST /api/test, Content-Length 1048576), send all of it but the last byte and wait; a
// connection the server closes (a refusal, or REQUEST_TIMEOUT_MS) is opened again a second later.
// Before the per-client body budget this held 360 MB until the timeout, and the memory stayed.
import { type Attack, closed, count, lanes, openSocket, requestHead, sleep, writeWhole } from './raw-socket.ts'

const CONNECTIONS = 500
const BODY_BYTES = 1_048_576
const REOPEN_AFTER_MS = 1000

export const unfinishedBodies: Attack = async run => {
  const head = requestHead('POST', '/api/test', {
    authorization: `Bearer ${run.spec.token}`,
    'content-type': 'application/json',
    'content-length': String(BODY_BYTES)
  })
  const body = Buffer.from(`{"fulltext":"${'x'.repeat(BODY_BYTES - 16)}"}`.padEnd(BODY_BYTES, ' '))
  const allButLast = Buffer.concat([Buffer.from(head), body.subarray(0, BODY_BYTES - 1)])
  await lanes(run, CONNECTIONS, async () => {
    const socket = await openSocket(run.spec)
    if (!socket) {
      count(run.counts, 'connect failures')
      return await Promise.race([sleep(REOPEN_AFTER_MS), run.over])
    }
    socket.on('error', () => {})
    socket.pause()
    count(run.counts, 'connections')
    if (await writeWhole(socket, allButLast, run.over)) count(run.counts, 'bodies sent but the last byte')
    await Promise.race([closed(socket), run.over])
    if (run.running()) count(run.counts, 'closed by the server')
    socket.destroy()
    await Promise.race([sleep(REOPEN_AFTER_MS), run.over])
  })
}
