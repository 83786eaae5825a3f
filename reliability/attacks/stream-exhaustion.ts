// Change-stream exhaustion from 10 addresses (127.0.0.2-11): each tries to hold 25 anonymous
// GET /changes/test streams (more than CHANGES_MAX_STREAMS_PER_CLIENT) and reads nothing after
// the answer's first bytes, while the plain user, from the first of them, creates 10 documents of
// 16 KB a second (in an unindexed field: the writes themselves stay cheap) so that every stream
// has changes to deliver. A stream refused or closed is tried again a
// second later. Before the per-client bounds, 300 streams that never read held 1 GB, kept after
// they closed.
import { createHttpClient } from '../http-client.ts'
import { type Attack, closed, count, firstReply, lanes, openSocket, requestHead, sleep } from './raw-socket.ts'

const ADDRESSES = Array.from({ length: 10 }, (_, i) => `127.0.0.${i + 2}`)
const STREAMS_PER_ADDRESS = 25
const RETRY_AFTER_MS = 1000
const WRITE_EVERY_MS = 100

const streams: Attack = async run => {
  const request = requestHead('GET', '/changes/test', { accept: 'text/event-stream' })
  await lanes(run, ADDRESSES.length * STREAMS_PER_ADDRESS, async lane => {
    const socket = await openSocket(run.spec, ADDRESSES[lane % ADDRESSES.length])
    if (!socket) {
      count(run.counts, 'connect failures')
      return await Promise.race([sleep(RETRY_AFTER_MS), run.over])
    }
    socket.on('error', () => {})
    socket.write(request)
    const reply = await firstReply(socket)
    const status = reply.slice(9, 12) || 'closed'
    if (status === '200') {
      count(run.counts, 'streams')
      await Promise.race([closed(socket), run.over])
      if (run.running()) count(run.counts, 'closed by the server')
    } else count(run.counts, `refused ${status}`)
    socket.destroy()
    await Promise.race([sleep(RETRY_AFTER_MS), run.over])
  })
}

const writes: Attack = async run => {
  const client = createHttpClient(run.spec.url, 1, 10_000, ADDRESSES[0])
  const shmack = Array.from({ length: 16 }, (_, i) => `${i} `.padEnd(1024, 'change '))
  while (run.running()) {
    const paced = sleep(WRITE_EVERY_MS)
    const reply = await client.send({
      method: 'POST',
      path: '/api/test',
      headers: { authorization: `Bearer ${run.spec.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ foo: 'stream-exhaustion', shmack })
    })
    await paced
    count(run.counts, reply.status === 200 || reply.status === 201 ? 'changes' : `write ${reply.status || reply.error}`)
  }
  client.close()
}

export const streamExhaustion: Attack = async run => {
  await Promise.all([streams(run), writes(run)])
}
