// The list read of a collection above EXACT_COUNT_LIMIT answers count -1 and
// page_count -1 (from the engine's size estimate), while /count still counts.
import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { ENGINES, createTestApp } from '../../helpers/test-app.ts'

for (const engine of ENGINES) {
  t.test(`count -1 above the exact-count limit on ${engine}`, async t => {
    const { app, admin } = await createTestApp(t, engine, { exactCountLimit: 3 })
    const docs = Array.from({ length: 6 }, (_, i) => ({ insertOne: { document: { name: `n${i}`, val: i } } }))
    const res = await app.inject({
      method: 'POST',
      url: '/bulkwrite/link',
      headers: { authorization: admin },
      payload: docs
    })
    t.equal(res.statusCode, 200, res.body)

    let body: Record<string, any> = {}
    for (let i = 0; i < 40; i++) {
      // the size estimate may lag a write by a few seconds
      body = JSON.parse((await app.inject({ url: '/api/link?limit=4&sort=val' })).body)
      if (body.count === -1) break
      await sleep(500)
    }
    t.match(body, { count: -1, page_count: -1, limit: 4, page: 1 })
    t.equal(body.data.length, 4)
    t.ok(body.next, 'a full page has a next link')
    const last = JSON.parse((await app.inject({ url: body.next })).body)
    t.equal(last.data.length, 2)
    t.notOk('next' in last, 'a short page is the last')
    t.same(JSON.parse((await app.inject({ url: '/count/link' })).body), { count: 6 }, '/count always counts')
  })
}
