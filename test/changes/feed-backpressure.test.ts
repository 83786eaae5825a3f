// A client that stops reading, on PostgreSQL: what waits for it in memory stays
// bounded (its queue and its buffer, each CHANGES_QUEUE_BYTES at most; beyond, it would read
// the change log), and after CHANGES_STALL_SECONDS without progress its stream is closed
// with SLOW_CONSUMER (the reason reaches it when it reads again); other subscribers are not
// held up, not even by bursts larger than the queue; it resumes without loss.
import t from 'tap'
import { ENGINES, createTestApp } from '../helpers/test-app.ts'
import { openSse } from '../helpers/sse-client.ts'
import { FEED_SETTINGS, listen, send } from '../helpers/feed-app.ts'

const QUEUE_BYTES = 1_048_576
/** Enough to fill the loopback connection's socket buffers (several MB) and then the queue. */
const WRITES = 48
const PAYLOAD = 'x'.repeat(300_000)

for (const engine of ENGINES) {
  t.test(`a slow subscriber on ${engine}`, async t => {
    const { app, admin } = await createTestApp(t, engine, {
      ...FEED_SETTINGS,
      changesQueueBytes: QUEUE_BYTES,
      changesStallSeconds: 2
    })
    const base = await listen(app)
    const slow = await openSse(`${base}/changes/test`)
    const fast = await openSse(`${base}/changes/test`)
    t.teardown(() => {
      slow.close()
      fast.close()
    })
    await Promise.all([slow.waitFor(1), fast.waitFor(1)])
    slow.pause()

    let peak = 0
    const sampler = setInterval(() => {
      peak = Math.max(peak, app.changes.stats().largestQueuedBytes)
    }, 5)
    for (let i = 0; i < WRITES; i++) await send(app, admin, 'POST', '/api/test', { foo: `doc${i}`, shmack: [PAYLOAD] })
    const fastEvents = await fast.waitFor(1 + WRITES, 60_000)
    for (let waited = 0; app.changes.stats().streams > 1 && waited < 30_000; waited += 50)
      await new Promise(resolve => setTimeout(resolve, 50))
    clearInterval(sampler)

    t.equal(fastEvents.length, 1 + WRITES, 'a reading subscriber got every event meanwhile')
    t.equal(app.changes.stats().streams, 1, 'the slow stream was closed')
    t.ok(
      peak > 0 && peak <= 2 * QUEUE_BYTES,
      `what waited in memory stayed within its queue and buffer bounds (the largest per stream peaked ` +
        `at ${peak} bytes; bound ${QUEUE_BYTES} each)`
    )

    slow.resume()
    await slow.ended()
    const last = slow.events[slow.events.length - 1]
    t.strictSame([last.event, last.json.code], ['close', 'SLOW_CONSUMER'], 'reading again, it finds why it was closed')
    const received = slow.events.filter(e => e.event === 'create')
    t.ok(received.length < WRITES, `it had received ${received.length} of ${WRITES}`)
    const resumed = await openSse(`${base}/changes/test`, { 'last-event-id': received[received.length - 1].id! })
    t.teardown(() => resumed.close())
    const rest = (await resumed.waitFor(1 + WRITES - received.length, 60_000)).slice(1)
    t.strictSame(
      [...received, ...rest].map(e => e.json.data.foo),
      Array.from({ length: WRITES }, (_, i) => `doc${i}`),
      'resuming, it gets the rest: nothing lost'
    )
  })
}
