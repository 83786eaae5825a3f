// HTTP scenarios for the read surface on every engine: filters, regex, search,
// full-text, sort, fields, paging links, counts, populate, /count and /query.
import t from 'tap'
import { engineLacks, wideEngines, createTestApp } from '../../helpers/test-app.ts'

type Json = Record<string, any>

for (const engine of wideEngines()) {
  t.test(`list reads on ${engine}`, async t => {
    const { app, admin } = await createTestApp(t, engine)
    const post = async (model: string, payload: Json): Promise<Json> => {
      const res = await app.inject({ method: 'POST', url: `/api/${model}`, headers: { authorization: admin }, payload })
      t.equal(res.statusCode, 200, res.body)
      return JSON.parse(res.body).data
    }
    const get = async (url: string, status = 200): Promise<Json> => {
      const res = await app.inject({ url })
      t.equal(res.statusCode, status, `${url} -> ${res.body.slice(0, 300)}`)
      return JSON.parse(res.body)
    }
    const ids = (body: Json): string[] => body.data.map((d: Json) => d.foo)

    const l1 = await post('link', { name: 'one', val: 1 })
    const l2 = await post('link', { name: 'two', val: 2 })
    const gone = await post('link', { name: 'gone', val: 3 })
    await app.inject({ method: 'DELETE', url: `/api/link/${gone._id}`, headers: { authorization: admin } })
    await post('test', {
      foo: 'alpha',
      bar: 'x',
      shmack: ['red', 'green'],
      yack: { s: 'a', n: 1 },
      fulltext: 'The quick brown fox jumps',
      link_id: l1._id,
      array_link_id: [l2._id, gone._id, l1._id]
    })
    await post('test', {
      foo: 'beta',
      bar: 'y',
      shmack: ['blue'],
      yack: { s: 'b', n: 5 },
      fulltext: 'A lazy dog sleeps all day',
      link_id: gone._id
    })
    await post('test', {
      foo: 'Gamma.ray',
      shmack: [],
      yack: { s: 'c', n: 9 },
      fulltext: 'Foxes are quick and clever foxes'
    })
    await post('test', { foo: 'delta\nline', bar: 'x', yack: { n: 3 } })

    t.same(ids(await get('/api/test?filter[foo]=beta')), ['beta'], 'exact match')
    t.same(
      ids(await get('/api/test?filter[yack.n]=$gt:3&sort=foo')),
      ['Gamma.ray', 'beta'],
      'comparison on a nested number'
    )
    t.same(
      ids(await get('/api/test?filter[yack.n]=$gte:1&filter[yack.n]=$lt:5&sort=yack.n')),
      ['alpha', 'delta\nline'],
      'repeated keys combine'
    )
    t.same(ids(await get('/api/test?filter[shmack]=green')), ['alpha'], 'a scalar matches an array element')
    t.same(ids(await get('/api/test?filter[bar]=$exists:false&sort=foo')), ['Gamma.ray'])
    t.same(ids(await get('/api/test?filter[bar]=$ne:x&sort=foo')), ['Gamma.ray', 'beta'], '$ne matches missing fields')
    t.same(ids(await get('/api/test?filter[bar]=$in:[y,z]')), ['beta'])
    t.same(
      ids(await get('/api/test?filter[foo]=$regex:/^(AL|BE)/i&sort=foo')),
      ['alpha', 'beta'],
      'regex with the i flag'
    )
    t.same(ids(await get('/api/test?filter[foo]=$regex:/^line$/m')), ['delta\nline'], 'm flag: ^ and $ at line breaks')
    t.same(ids(await get('/api/test?filter[foo]=$regex:/delta.line/')), [], 'without s, . does not match a newline')
    t.same(ids(await get('/api/test?filter[foo]=$regex:/delta.line/s')), ['delta\nline'], 's flag')
    t.same(ids(await get('/api/test?search[foo]=A.R')), ['Gamma.ray'], 'search[field] is case-insensitive and literal')
    t.same(
      ids(await get('/api/test?filter[createdAt]=$gt:2000-01-01&filter[foo]=alpha')),
      ['alpha'],
      'dates compare as dates'
    )
    t.same(
      ids(await get(`/api/test?filter[createdAt]=$lt:${Math.floor(Date.now() / 1000) + 3600}&filter[foo]=alpha`)),
      ['alpha'],
      'Unix time'
    )

    const noText = engineLacks(engine, 'text')
    await t.test('full-text search', { skip: noText }, async t => {
      const fts = await get('/api/test?search=fox')
      t.same(ids(fts), ['Gamma.ray', 'alpha'], 'full-text search ranks by relevance (stemmed: foxes)')
      t.ok(
        fts.data.every((d: Json) => typeof d.score === 'number'),
        'each row has a numeric score'
      )
      t.same(ids(await get('/api/test?search=quick -dog')).sort(), ['Gamma.ray', 'alpha'], 'web-search syntax')
    })
    if (noText)
      t.equal(
        (await get('/api/test?search=fox', 501)).code,
        'NOT_SUPPORTED_BY_STORAGE',
        'where the server has no text indexes, search is a clear 501'
      )
    t.equal((await get('/api/link?search=x', 400)).code, 'NO_FULLTEXT_INDEX')

    t.same(ids(await get('/api/test?sort=-yack.n')), ['Gamma.ray', 'beta', 'delta\nline', 'alpha'])
    t.same(ids(await get('/api/test?sort[yack.n]=1')), ['alpha', 'delta\nline', 'beta', 'Gamma.ray'])
    const slim = await get('/api/test?fields=foo&filter[foo]=alpha')
    t.same(Object.keys(slim.data[0]).sort(), ['_id', 'foo', 'id'], 'fields keeps _id and id')

    const page1 = await get('/api/test?limit=3&sort=foo&filter[yack.n]=$gte:0')
    t.match(page1, { count: 4, limit: 3, page: 1, page_count: 2 })
    t.notOk('prev' in page1)
    t.equal(page1.data.length, 3)
    const page2 = await get(page1.next)
    t.match(page2, { count: 4, page: 2, page_count: 2 })
    t.notOk('next' in page2, 'no next on the last page')
    t.ok(page2.prev, 'prev on page 2')
    t.match(page1.next, /filter%5Byack\.n%5D=%24gte%3A0|filter\[yack\.n\]=/, 'next keeps the filter')
    t.same((await get('/api/test?limit=3&page=9')).data, [], 'beyond the last page: empty data')
    t.match(await get('/api/test?limit=5000'), { limit: 1000, limit_capped: true })
    t.match(await get('/api/test'), { limit: 100, page: 1, page_count: 1 })

    const populated = await get('/api/test?filter[foo]=alpha&populate=link,array_link')
    t.equal(populated.data[0].link.name, 'one')
    t.equal(populated.data[0].link_id, l1._id, 'the id field stays')
    t.same(
      populated.data[0].array_link.map((d: Json) => d.name),
      ['two', 'one'],
      'array links in order, deleted ones left out'
    )
    t.equal(
      (await get('/api/test?filter[foo]=beta&populate[link]=name')).data[0].link,
      null,
      'a deleted link populates as null'
    )
    const subset = await get('/api/test?filter[foo]=alpha&populate[link]=name')
    t.same(Object.keys(subset.data[0].link).sort(), ['_id', 'id', 'name'])
    const auto = await get('/api/test?filter[foo]=alpha&autopopulate=true')
    t.ok(auto.data[0].link && auto.data[0].other_link === null && Array.isArray(auto.data[0].array_link))
    t.equal(
      (await get(`/api/test/${populated.data[0]._id}?populate=link`)).data.link.name,
      'one',
      'populate on a single read'
    )
    t.equal((await get('/api/test?populate=nope', 400)).code, 'BAD_REQUEST')

    t.same(await get('/count/test?filter[bar]=x'), { count: 2 })
    t.same(await get('/count/link'), { count: 2 }, 'soft-deleted documents are not counted')
    t.equal((await get('/count/test?search=fox', 400)).code, 'SEARCH_NOT_SUPPORTED')

    const query = async (payload: Json, qs = '', status = 200): Promise<Json> => {
      const res = await app.inject({ method: 'POST', url: `/query/test${qs}`, payload })
      t.equal(res.statusCode, status, res.body.slice(0, 300))
      return JSON.parse(res.body)
    }
    t.same(
      ids(
        await query(
          { query: { $or: [{ foo: { $regex: '^al', $options: 'i' } }, { 'yack.n': { $gt: 8 } }] } },
          '?sort=foo'
        )
      ),
      ['Gamma.ray', 'alpha']
    )
    t.same(ids(await query({ query: { shmack: { $size: 0 } } })), ['Gamma.ray'])
    t.same(ids(await query({ query: { shmack: { $all: ['red', 'green'] } } })), ['alpha'])
    t.same(ids(await query({ query: { $nor: [{ bar: 'x' }] } }, '?sort=foo')), ['Gamma.ray', 'beta'])
    t.same(ids(await query({ query: { foo: { $not: { $regex: 'ph|et|ay' } } } })), ['delta\nline'])
    t.equal(
      (await query({ query: {} }, '?limit=1&populate=link&sort=foo')).data[0].link,
      null,
      'list features still apply to /query'
    )
    t.equal((await query({ query: { foo: { $where: 'x' } } }, '', 400)).code, 'UNSUPPORTED_OPERATOR')
    t.equal((await query({ query: {} }, '?search=fox', 400)).code, 'SEARCH_NOT_SUPPORTED')
    t.equal(
      (await query({ query: { "a'; drop table q_test; --": 1 } }, '', 400)).code,
      'INVALID_FIELD',
      'injection in a field name is refused'
    )
    t.equal(
      (await get("/api/test?filter[foo]=x'); drop table q_test; --")).count,
      0,
      'injection in a value is only a value'
    )
    t.equal((await get('/count/test')).count, 4, 'and the table is still there')
  })
}
