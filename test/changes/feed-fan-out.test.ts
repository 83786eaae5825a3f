// A change going out to many subscribers of one model does not hold the event loop for all of them
// at once: other work runs between the first subscriber's hand-over and the last one's, and every
// subscriber still gets the change, once and in order: after 32 subscribers, or sooner when the
// events are large (about 64 KB per turn). Subscribers here are the hub's own (in-memory sinks, no
// sockets), on PostgreSQL.
import t, { type Test } from 'tap'
import { createTestApp } from '../helpers/test-app.ts'
import { FEED_SETTINGS, send } from '../helpers/feed-app.ts'
import { ANONYMOUS } from '../../src/auth/caller.ts'
import type { FeedMessage, FeedSink } from '../../src/changes/transports/feed-sink.ts'

/** A sink that records what it is sent, calling `onChange` with each change. */
function recordingSink(onChange: () => void): FeedSink & { received: FeedMessage[] } {
  const received: FeedMessage[] = []
  let closed = false
  return {
    received,
    send: message => {
      received.push(message)
      if (message.type === 'change') onChange()
    },
    close: () => {
      closed = true
    },
    drained: async () => {},
    get closed() {
      return closed
    },
    queuedBytes: 0,
    onClose: () => {}
  }
}

/** Subscribes `subscribers` recording sinks to `test`, creates `doc`, and waits until each has had the change. */
async function fanOut(t: Test, subscribers: number, doc: Record<string, unknown>) {
  const { app, admin } = await createTestApp(t, 'postgres', { ...FEED_SETTINGS, changesMaxStreamsPerClient: 1000 })
  const order: string[] = []
  const sinks = Array.from({ length: subscribers }, (_, k) =>
    recordingSink(() => {
      order.push(`subscriber ${k}`)
      if (order.length === 1) setImmediate(() => order.push('other work'))
    })
  )
  for (const sink of sinks)
    await app.changes.subscribe({
      model: app.models.get('test'),
      filter: {},
      showDeleted: false,
      callers: { caller: ANONYMOUS, resolve: async () => ANONYMOUS },
      client: '192.0.2.1',
      sink
    })
  await send(app, admin, 'POST', '/api/test', doc)
  for (let waited = 0; order.length < subscribers + 1 && waited < 30_000; waited += 20)
    await new Promise(resolve => setTimeout(resolve, 20))
  return { order, sinks }
}

/** Asserts that every subscriber got the change once, in order, and that other work ran before the last had it. */
function assertSpread(t: Test, { order, sinks }: Awaited<ReturnType<typeof fanOut>>): void {
  t.ok(
    sinks.every(sink => sink.received.filter(m => m.type === 'change').length === 1),
    'every subscriber got the change once'
  )
  const other = order.indexOf('other work')
  t.ok(
    other > 0 && other < order.indexOf(`subscriber ${sinks.length - 1}`),
    `other work ran while the change went out (after ${other} of ${sinks.length} subscribers)`
  )
  t.same(
    order.filter(entry => entry !== 'other work'),
    sinks.map((_, k) => `subscriber ${k}`),
    'in the order they subscribed'
  )
}

t.test('a change reaches 100 subscribers over several turns of the event loop', async t => {
  assertSpread(t, await fanOut(t, 100, { foo: 'fan-out' }))
})

t.test('a 20 KB change reaches 8 subscribers over several turns: a turn hands over about 64 KB', async t => {
  assertSpread(t, await fanOut(t, 8, { foo: 'fan-out', shmack: ['x'.repeat(20 * 1024)] }))
})
