// A full-text search page ranks at most SEARCH_CANDIDATES matches, so that a common word costs what
// 10,000 matches cost whatever the collection's size: a search matching up to that many documents
// gets its true top; above it, the page's top is the best of the first 10,000 matches in storage
// order (README, "Full-text search"). The count still counts every match; a CSV export ranks all.
import t from 'tap'
import { prepareCreate } from '../src/documents/prepare-document.ts'
import { SEARCH_CANDIDATES } from '../src/sql/compile-find.ts'
import { ENGINES, createTestApp } from './helpers/test-app.ts'

const ADMIN = { admin: true, groups: [] }

for (const engine of ENGINES) {
  t.test(`${engine}: a search ranks at most ${SEARCH_CANDIDATES} of its matches`, async t => {
    const { app, admin } = await createTestApp(t, engine)
    const model = app.models.get('test')!
    const make = (body: Record<string, unknown>): Promise<Record<string, unknown>> => prepareCreate({ model, body, caller: ADMIN, form: false, bcryptRounds: 4 })
    // SEARCH_CANDIDATES documents mention "common" once; the best match, stored after them, three times.
    const fillers = await Promise.all(Array.from({ length: SEARCH_CANDIDATES }, (_, i) => make({ fulltext: 'common filler', foo: i < 50 ? 'narrow' : 'wide' })))
    await app.db.insertMany(model, fillers)
    await app.db.insertMany(model, [await make({ fulltext: 'common common common best', foo: 'narrow' })])
    const get = async (url: string): Promise<{ count: number, data: Array<{ fulltext: string }> }> => {
      const res = await app.inject({ url, headers: { authorization: admin } })
      t.equal(res.statusCode, 200, url)
      return JSON.parse(res.body)
    }

    const common = await get('/api/test?search=common&limit=1')
    t.equal(common.count, SEARCH_CANDIDATES + 1, 'the count counts every match')
    t.equal(common.data[0].fulltext, 'common filler', 'above the limit, the page ranks the first matches in storage order (the best one came later)')
    const narrow = await get('/api/test?search=common&filter[foo]=narrow&limit=1')
    t.equal(narrow.count, 51)
    t.equal(narrow.data[0].fulltext, 'common common common best', 'up to the limit, the true top')
    t.equal((await get('/api/test?search=best&limit=1')).data[0].fulltext, 'common common common best')

    const csv = await app.inject({ url: '/csv/test?search=common&fields=fulltext', headers: { authorization: admin } })
    t.equal(csv.statusCode, 200)
    const [header, ...rows] = csv.body.trim().split('\r\n').map(row => row.split(','))
    t.same(header, ['_id', 'fulltext', 'score'])
    t.equal(rows[0][1], 'common common common best', 'an export ranks every match')
    t.equal(rows.length, SEARCH_CANDIDATES + 1, 'and lists them all')
  })
}
