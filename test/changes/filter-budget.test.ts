// One subscriber's filter decides only for that subscriber. Found by an outside review: when one
// subscriber's filter ran out of time against a change (a lookahead and a long string), every
// subscriber of the model was closed with UNAVAILABLE, at every such write.
import t from 'tap'
import { ENGINES, createTestApp } from '../helpers/test-app.ts'
import { FEED_SETTINGS, listen, send } from '../helpers/feed-app.ts'
import { openSse } from '../helpers/sse-client.ts'

for (const engine of ENGINES) {
  t.test(`a filter that runs out of time closes its own stream only, on ${engine}`, async t => {
    const { app, admin } = await createTestApp(t, engine, { ...FEED_SETTINGS, statementTimeoutMs: 500 })
    const base = await listen(app)
    const slow = await openSse(`${base}/changes/test?filter[foo]=${encodeURIComponent('$regex:(?=(a+)+b)')}`)
    const plain = await openSse(`${base}/changes/test`)
    const other = await openSse(`${base}/changes/test?filter[bar]=keep`)
    t.teardown(() => {
      slow.close()
      plain.close()
      other.close()
    })
    t.equal(slow.status, 200, 'the filter is accepted')
    await send(app, admin, 'POST', '/api/test', { foo: 'a'.repeat(200_000), bar: 'keep' })
    await send(app, admin, 'POST', '/api/test', { foo: 'short', bar: 'keep' })
    t.equal((await plain.waitFor(2, 30_000)).length, 2, 'a subscriber without a filter gets both changes')
    t.equal((await other.waitFor(2, 30_000)).length, 2, 'a subscriber with a cheap filter too')
    await slow.ended()
    const last = slow.events.at(-1)
    t.match(
      last?.json,
      { code: 'QUERY_TIMEOUT' },
      `the slow filter's own stream is closed, saying why: ${JSON.stringify(last)}`
    )
  })
}
