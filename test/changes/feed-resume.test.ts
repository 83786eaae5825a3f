// Resuming a change feed on PostgreSQL: a client that reconnects with
// Last-Event-ID (or ?lastEventId=) gets exactly what it missed, also while writes go on;
// beyond the retention window, or with a position the feed never gave, it gets `reset`
// and goes on from the present.
import t from 'tap'
import { ENGINES, createTestApp } from '../helpers/test-app.ts'
import { openSse, type SseEvent, type SseStream } from '../helpers/sse-client.ts'
import { FEED_SETTINGS, listen, send } from '../helpers/feed-app.ts'

const foos = (events: SseEvent[]): string[] => events.filter(e => e.event !== 'ready').map(e => e.json.data.foo)

for (const engine of ENGINES) {
  t.test(`resume on ${engine}`, async t => {
    const { app, admin } = await createTestApp(t, engine, FEED_SETTINGS)
    const base = await listen(app)
    const open = async (headers: Record<string, string> = {}, query = ''): Promise<SseStream> => {
      const stream = await openSse(`${base}/changes/test${query}`, headers)
      t.teardown(() => stream.close())
      return stream
    }
    const write = (foo: string): Promise<unknown> => send(app, admin, 'POST', '/api/test', { foo })

    t.test('the first subscriber leaving stops nothing for the others', async t => {
      const first = await open()
      await first.waitFor(1)
      const second = await open()
      await second.waitFor(1)
      first.close()
      await first.ended()
      for (const foo of ['s1', 's2']) await write(foo)
      t.strictSame(foos(await second.waitFor(3)), ['s1', 's2'], 'the feed the first one started goes on')
    })

    t.test('what was missed, exactly, then live', async t => {
      const first = await open()
      await first.waitFor(1)
      for (const foo of ['a1', 'a2', 'a3']) await write(foo)
      const seen = await first.waitFor(4)
      first.close()
      for (const foo of ['b1', 'b2', 'b3', 'b4']) await write(foo)
      const again = await open({ 'last-event-id': seen[3].id! })
      const [ready] = await again.waitFor(1)
      t.strictSame([ready.event, ready.id], ['ready', seen[3].id], 'ready, at the position asked for')
      t.strictSame(foos(await again.waitFor(5)), ['b1', 'b2', 'b3', 'b4'], 'the missed events, no more')
      await write('c1')
      t.strictSame(foos(await again.waitFor(6)), ['b1', 'b2', 'b3', 'b4', 'c1'], 'then live')
      const byQuery = await open({}, `?lastEventId=${seen[3].id!}`)
      t.strictSame(
        foos(await byQuery.waitFor(6)),
        ['b1', 'b2', 'b3', 'b4', 'c1'],
        '?lastEventId= works like the header'
      )
    })

    t.test('no loss while writes go on and the client reconnects', async t => {
      const expected = Array.from({ length: 40 }, (_, i) => `w${i}`)
      const received: string[] = []
      let last: string | undefined = (await (await open()).waitFor(1))[0].id
      const writing = (async () => {
        for (const foo of expected) await write(foo)
      })()
      while (received.length < expected.length) {
        const stream = await open({ 'last-event-id': last! })
        const events = await stream.waitFor(Math.min(1 + 7, 1 + expected.length - received.length))
        stream.close()
        received.push(...foos(events).filter(foo => foo.startsWith('w')))
        last = events[events.length - 1].id
      }
      await writing
      t.strictSame(received, expected, 'every event once, in order, across reconnections')
    })

    t.test('beyond the retention window: reset', async t => {
      const stream = await open()
      const [ready] = await stream.waitFor(1)
      stream.close()
      for (const foo of ['p1', 'p2', 'p3']) await write(foo)
      t.ok((await app.db.changes.prune({ seconds: 3600, entries: 1 })) > 0, 'the log was pruned to its newest entry')
      const late = await open({ 'last-event-id': ready.id! })
      const [reset] = await late.waitFor(1)
      t.equal(reset.event, 'reset', 'a reset event')
      t.match(reset.json.reason, /no longer kept/, 'saying why')
      await write('after-reset')
      t.strictSame(foos((await late.waitFor(2)).slice(1)), ['after-reset'], 'then the stream goes on from the present')
      for (const bogus of ['not-a-number', '99999999999']) {
        const odd = await open({ 'last-event-id': bogus })
        t.equal((await odd.waitFor(1))[0].event, 'reset', `a position the feed never gave (${bogus}): reset`)
      }
    })
  })
}
