// Two Quire processes on one PostgreSQL database: a write through either one reaches the
// subscribers of both, in the same order with the same positions (one sequence for the
// whole database); a change too big for NOTIFY's payload is read from the change log; a
// client can resume on one process with the position the other one gave it.
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { createTestApp } from '../helpers/test-app.ts'
import { openSse, type SseStream } from '../helpers/sse-client.ts'
import { FEED_SETTINGS, listen, send } from '../helpers/feed-app.ts'
import { startPeerProcess } from '../helpers/quire-process.ts'

t.test('two processes on one PostgreSQL', async t => {
  const { app, admin } = await createTestApp(t, 'postgres', FEED_SETTINGS)
  const here = await listen(app)
  const there = await startPeerProcess(t, app)
  const open = async (base: string, headers: Record<string, string> = {}): Promise<SseStream> => {
    const stream = await openSse(`${base}/changes/test`, headers)
    t.teardown(() => stream.close())
    return stream
  }
  const onHere = await open(here)
  const onThere = await open(there)
  await Promise.all([onHere.waitFor(1), onThere.waitFor(1)])

  await send(app, admin, 'POST', '/api/test', { foo: 'written-here' })
  const response = await fetch(`${there}/api/test`, {
    method: 'POST',
    headers: { authorization: admin, 'content-type': 'application/json' },
    body: JSON.stringify({ foo: 'written-there' })
  })
  t.equal(response.status, 200, 'the other process takes writes')
  const big = 'x'.repeat(20_000)
  await send(app, admin, 'POST', '/api/test', { foo: 'big', bar: big })
  // Stored over 8 KB even compressed: the batch is announced as a range without being read back.
  const noise = randomBytes(6_000).toString('base64')
  await send(app, admin, 'POST', '/api/test', { foo: 'incompressible', shmack: [noise] })

  const seenHere = (await onHere.waitFor(5)).slice(1)
  const seenThere = (await onThere.waitFor(5)).slice(1)
  t.strictSame(
    seenHere.map(e => e.json.data.foo),
    ['written-here', 'written-there', 'big', 'incompressible'],
    "this process sees both processes' writes"
  )
  t.strictSame(
    seenThere.map(e => [e.id, e.json.data.foo]),
    seenHere.map(e => [e.id, e.json.data.foo]),
    'the other one too, in the same order, with the same positions'
  )
  t.equal(seenThere[2].json.data.bar, big, "a change over NOTIFY's 8 KB limit arrives whole (read from the change log)")
  t.strictSame(
    [seenHere[3].json.data.shmack[0], seenThere[3].json.data.shmack[0]],
    [noise, noise],
    'so does one too large to read back when numbering it'
  )

  onThere.close()
  await send(app, admin, 'POST', '/api/test', { foo: 'while-away' })
  const resumed = await open(there, { 'last-event-id': seenHere[3].id! })
  t.strictSame(
    (await resumed.waitFor(2)).slice(1).map(e => e.json.data.foo),
    ['while-away'],
    'a position given by one process resumes on the other'
  )
})
