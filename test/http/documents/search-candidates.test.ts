// A one-word search reads its page from the rank table (src/compiler/ddl/search-ranks.ts): the true top
// however many documents hold the word. Other searches rank at most SEARCH_CANDIDATES matches, so
// that common words cost what 10,000 matches cost whatever the collection's size: such a search
// matching up to that many documents gets its true top; above it, the page's top is the best of the
// first 10,000 matches in storage order (README, "Full-text search"). The count still counts every
// match; a CSV export ranks all. The rank table follows updates and deletes.
import t from 'tap'
import { prepareCreate } from '../../../src/documents/prepare-document.ts'
import { SEARCH_CANDIDATES } from '../../../src/compiler/find/compile-find.ts'
import { ENGINES, createTestApp } from '../../helpers/test-app.ts'

const ADMIN = { admin: true, groups: [] }

for (const engine of ENGINES) {
  t.test(`${engine}: one word gets its true top; more words rank at most ${SEARCH_CANDIDATES} matches`, async t => {
    const { app, admin } = await createTestApp(t, engine)
    const model = app.models.get('test')!
    const make = (body: Record<string, unknown>): Promise<Record<string, unknown>> =>
      prepareCreate({ model, body, caller: ADMIN, form: false, bcryptRounds: 4 })
    // SEARCH_CANDIDATES documents mention "common" once; the best match, stored after them, three times.
    const fillers = await Promise.all(
      Array.from({ length: SEARCH_CANDIDATES }, (_, i) =>
        make({ fulltext: 'common filler', foo: i < 50 ? 'narrow' : 'wide' })
      )
    )
    await app.db.insertMany(model, fillers)
    const bestDoc = await make({ fulltext: 'common common common filler best', foo: 'narrow' })
    await app.db.insertMany(model, [bestDoc])
    const get = async (url: string): Promise<{ count: number; data: Array<{ fulltext: string }> }> => {
      const res = await app.inject({ url, headers: { authorization: admin } })
      t.equal(res.statusCode, 200, url)
      return JSON.parse(res.body)
    }

    const best = 'common common common filler best'
    const common = await get('/api/test?search=common&limit=1')
    t.equal(common.count, SEARCH_CANDIDATES + 1, 'the count counts every match')
    t.equal(common.data[0].fulltext, best, 'one word: the true top above the limit (the best one came last)')
    const second = await get('/api/test?search=common&limit=2&page=2')
    t.equal(second.data[0].fulltext, 'common filler', 'and the next page')
    const twoWords = await get('/api/test?search=common%20filler&limit=1')
    t.equal(twoWords.count, SEARCH_CANDIDATES + 1)
    t.equal(
      twoWords.data[0].fulltext,
      'common filler',
      'two words above the limit: the page ranks the first matches in storage order'
    )
    const narrow = await get('/api/test?search=common%20filler&filter[foo]=narrow&limit=1')
    t.equal(narrow.count, 51)
    t.equal(narrow.data[0].fulltext, best, 'up to the limit, the true top')
    t.equal((await get('/api/test?search=best&limit=1')).data[0].fulltext, best)

    const csv = await app.inject({ url: '/csv/test?search=common&fields=fulltext', headers: { authorization: admin } })
    t.equal(csv.statusCode, 200)
    const [header, ...rows] = csv.body
      .trim()
      .split('\r\n')
      .map(row => row.split(','))
    t.same(header, ['_id', 'fulltext', 'score'])
    t.equal(rows[0][1], best, 'an export ranks every match')
    t.equal(rows.length, SEARCH_CANDIDATES + 1, 'and lists them all')

    const put = await app.inject({
      method: 'PUT',
      url: `/api/test/${bestDoc._id as string}`,
      headers: { authorization: admin },
      payload: { fulltext: 'filler solitary' }
    })
    t.equal(put.statusCode, 200)
    t.equal(
      (await get('/api/test?search=common&limit=1')).data[0].fulltext,
      'common filler',
      "a changed text leaves the word's ranking"
    )
    t.equal(
      (await get('/api/test?search=solitary&limit=1')).data[0].fulltext,
      'filler solitary',
      "and enters its new words'"
    )
    t.equal(
      (
        await app.inject({
          method: 'DELETE',
          url: `/api/test/${bestDoc._id as string}`,
          headers: { authorization: admin }
        })
      ).statusCode,
      200
    )
    t.equal((await get('/api/test?search=solitary&limit=1')).count, 0, 'a deleted document is not found')
  })
}
