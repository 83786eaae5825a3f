// Counts a front end can page by (after PostgREST's count=exact|planned|estimated): above
// EXACT_COUNT_LIMIT a list answers count -1 unless it asks, with ?count=, for an exact count
// (counted whatever the size), the planner's estimate (labelled count_estimated) or an exact
// count up to the limit and the estimate above it. Below the limit every mode counts exactly.
import t from 'tap'
import { createTestApp } from '../../helpers/test-app.ts'

const DOCS = 40

t.test('count modes above and below the exact-count limit', async t => {
  const { app, admin } = await createTestApp(t, 'postgres', { exactCountLimit: 10, countCacheMs: 0 })
  const docs = Array.from({ length: DOCS }, (_, i) => ({
    insertOne: { document: { name: i % 4 === 0 ? 'rare' : 'common', val: i } }
  }))
  t.equal(
    (await app.inject({ method: 'POST', url: '/bulkwrite/link', headers: { authorization: admin }, payload: docs }))
      .statusCode,
    200
  )
  await app.db.refreshStatistics(app.models.get('link'))
  const list = async (query: string): Promise<Record<string, any>> => {
    const res = await app.inject(`/api/link?limit=4&${query}`)
    t.equal(res.statusCode, 200, `${query}: ${res.statusCode === 200 ? 'ok' : res.body}`)
    return res.json()
  }

  t.match(await list(''), { count: -1, page_count: -1 }, 'left out: -1 above the limit, as the contract says')
  t.match(await list('count=true'), { count: -1 }, "JXP's count=true is the default")

  const exact = await list('count=exact&filter[name]=rare')
  t.match(exact, { count: DOCS / 4, page_count: Math.ceil(DOCS / 16) }, 'exact: counted, filter and all')
  t.notOk('count_estimated' in exact, 'and not labelled an estimate')

  const planned = await list('count=planned')
  t.equal(planned.count_estimated, true, 'planned: labelled an estimate')
  t.ok(
    Number.isInteger(planned.count) && planned.count >= DOCS / 2 && planned.count <= DOCS * 2,
    `close to the size (${planned.count})`
  )
  t.ok(planned.next, 'paging follows the page, not the estimate')

  const estimated = await list('count=estimated&filter[name]=rare')
  t.equal(estimated.count_estimated, true, "estimated above the limit: the planner's")
  t.ok(Number.isInteger(estimated.count) && estimated.count >= 0, `a whole number (${estimated.count})`)

  const searching = await app.inject('/api/test?count=planned&search=rare')
  t.equal(searching.statusCode, 400, 'the planner cannot estimate a search')
  t.match(searching.json(), { code: 'BAD_REQUEST', message: /count=planned cannot estimate a full-text search/ })
  const wrong = await app.inject('/api/link?count=approximately')
  t.equal(wrong.statusCode, 400)
  t.same(wrong.json(), {
    status: 'fail',
    code: 'BAD_REQUEST',
    message:
      'count must be exact, planned or estimated (or left out: exact up to EXACT_COUNT_LIMIT documents, -1 above)'
  })

  const queried = await app.inject({
    method: 'POST',
    url: '/query/link?count=exact&limit=4',
    headers: { authorization: admin },
    payload: { query: { val: { $gte: 30 } } }
  })
  t.match(queried.json(), { count: 10 }, 'POST /query takes it too')
})

t.test('below the limit every mode counts exactly', async t => {
  const { app, admin } = await createTestApp(t, 'postgres')
  const docs = Array.from({ length: 6 }, (_, i) => ({ insertOne: { document: { name: `n${i}`, val: i } } }))
  await app.inject({ method: 'POST', url: '/bulkwrite/link', headers: { authorization: admin }, payload: docs })
  for (const mode of ['', 'exact', 'estimated']) {
    const body = (await app.inject(`/api/link?count=${mode}`)).json()
    t.equal(body.count, 6, `count=${mode}`)
    t.notOk('count_estimated' in body)
  }
})
