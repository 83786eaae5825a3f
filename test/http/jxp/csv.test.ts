// GET /csv/{model} (JXP's export) on every engine: RFC 4180 text that a CSV parser
// reads back to the stored values, nested values in dotted columns, formula-looking
// cells escaped, never a password, the list's parameters and permissions, a row cap
// for callers who are not admins, and large exports streamed in batches.
import t from 'tap'
import { parse } from 'csv-parse/sync'
import { ENGINES, createTestApp } from '../../helpers/test-app.ts'
import { newSystemFields } from '../../../src/documents/prepare-document.ts'
import { ANONYMOUS } from '../../../src/auth/caller.ts'

const rowsOf = (body: string): string[][] => parse(body, { relax_column_count: false }) as string[][]
/**
 * The line breaks of `body` outside quoted cells that are not a CRLF record end: readers that split rows on any of them
 * (spreadsheets do) would start a forged row there.
 */
const strayBreaks = (body: string): string[] => body.replace(/"(?:[^"]|"")*"/g, '').match(/\r(?!\n)|(?<!\r)\n/g) ?? []

for (const engine of ENGINES) {
  t.test(`CSV export on ${engine}`, async t => {
    const { app, admin, createUser } = await createTestApp(t, engine, { csvMaxRows: 5 })
    const post = async (model: string, payload: object, authorization = admin): Promise<string> => {
      const res = await app.inject({ method: 'POST', url: `/api/${model}`, headers: { authorization }, payload })
      t.equal(res.statusCode, 200, res.body)
      return JSON.parse(res.body).data._id
    }
    const link = await post('link', { name: 'target', val: 7 })
    const plain = await post('test', {
      foo: 'plain',
      bar: 'has,comma',
      yack: { s: 'he said "hi"', n: -3 },
      shmack: ['x', 'y'],
      fulltext: 'line one\nline two',
      password: 'pw-secret',
      link_id: link
    })
    await post('test', {
      foo: '=HYPERLINK("http://evil.example")',
      bar: '+1',
      yack: { s: '@SUM(A1)', n: 2 },
      fulltext: '-2+3'
    })
    await post('test', { foo: 'Zoë ✓' })

    await t.test('RFC 4180 text, dotted columns, escaped formulas, no passwords', async t => {
      const res = await app.inject({ url: '/csv/test?sort=foo' })
      t.equal(res.statusCode, 200, res.body)
      t.equal(res.headers['content-type'], 'text/csv; charset=utf-8')
      t.equal(res.headers['content-disposition'], 'attachment; filename="test.csv"')
      const [header, ...rows] = rowsOf(res.body)
      t.same(header, [
        '_id',
        'foo',
        'bar',
        'shmack',
        'yack.s',
        'yack.n',
        'fulltext',
        'link_id',
        'other_link_id',
        'array_link_id',
        '_deleted',
        '_owner_id',
        'createdAt',
        'updatedAt',
        '__v',
        '_updated_by_id'
      ])
      const cells = rows.map(row => Object.fromEntries(header.map((name, i) => [name, row[i]])))
      t.same(
        cells.map(c => c.foo),
        ['\'=HYPERLINK("http://evil.example")', 'Zoë ✓', 'plain'],
        'a cell starting with = is escaped; text survives the round trip'
      )
      t.same([cells[0].bar, cells[0]['yack.s'], cells[0].fulltext], ["'+1", "'@SUM(A1)", "'-2+3"], '+, @ and - too')
      t.match(
        cells[2],
        {
          _id: plain,
          bar: 'has,comma',
          shmack: '["x","y"]',
          'yack.s': 'he said "hi"',
          'yack.n': '-3',
          fulltext: 'line one\nline two',
          link_id: link,
          other_link_id: '',
          array_link_id: '[]',
          _deleted: 'false',
          __v: '0'
        },
        'commas, quotes and line breaks quoted; arrays as JSON; a negative number stays a number; missing values empty'
      )
      t.notOk(
        res.body.includes('pw-secret') || res.body.includes('$2b$') || res.body.includes('password'),
        'no password column, no hash'
      )
      t.ok(res.body.includes('\r\n'), 'records end with CRLF')
      t.same(strayBreaks(res.body), [], 'every other line break is inside a quoted cell')
    })

    await t.test('a bare line feed or carriage return cannot start a forged row', async t => {
      const id = await post('test', {
        foo: 'lf\n=HYPERLINK("http://evil.example")',
        bar: 'cr\r@SUM(A1)',
        fulltext: '\n=1+1'
      })
      const res = await app.inject({ url: `/csv/test?filter[_id]=${id}&fields=foo,bar,fulltext` })
      t.equal(res.statusCode, 200, res.body)
      t.same(strayBreaks(res.body), [], 'every CR and LF in a value is inside quotes')
      t.same(
        rowsOf(res.body),
        [
          ['_id', 'foo', 'bar', 'fulltext'],
          [id, 'lf\n=HYPERLINK("http://evil.example")', 'cr\r@SUM(A1)', '\n=1+1']
        ],
        'one row, values intact'
      )
      await app.inject({ method: 'DELETE', url: `/api/test/${id}`, headers: { authorization: admin } })
    })

    await t.test("the list's parameters", async t => {
      const picked = rowsOf((await app.inject({ url: '/csv/test?filter[foo]=plain&fields=foo,yack,password' })).body)
      t.same(
        picked,
        [
          ['_id', 'foo', 'yack.s', 'yack.n'],
          [plain, 'plain', 'he said "hi"', '-3']
        ],
        'filter and fields (an object field expands; a password field has no column)'
      )
      const populated = rowsOf((await app.inject({ url: '/csv/test?filter[foo]=plain&fields=foo&populate=link' })).body)
      t.same(
        populated,
        [
          ['_id', 'foo', 'link._id', 'link.name', 'link.val'],
          [plain, 'plain', link, 'target', '7']
        ],
        'a populated link in dotted columns'
      )
      const searched = rowsOf((await app.inject({ url: '/csv/test?search=line&fields=foo' })).body)
      t.same(searched[0], ['_id', 'foo', 'score'], 'a search adds its score')
      const paged = rowsOf((await app.inject({ url: '/csv/test?sort=foo&limit=1&page=2&fields=foo' })).body)
      t.same(
        paged.slice(1).map(r => r[1]),
        ['Zoë ✓'],
        'limit and page'
      )
      t.equal((await app.inject({ url: '/csv/test?limt=3' })).statusCode, 400, 'a misspelled parameter is a 400')
      t.same(
        rowsOf((await app.inject({ url: '/csv/test?filter[foo]=nothing' })).body).length,
        1,
        'no match: the header alone'
      )
    })

    await t.test('permissions', async t => {
      t.equal((await app.inject({ url: '/csv/user' })).statusCode, 401, 'a model the caller may not read')
      const bob = await createUser('bob@example.com', 'bob-password')
      const own = await app.inject({ url: '/csv/user', headers: { authorization: bob.auth } })
      t.equal(own.statusCode, 200, own.body)
      const users = rowsOf(own.body)
      t.same(
        users.slice(1).map(r => r[0]),
        [bob.id],
        'owner-only readers get their own documents'
      )
      t.notOk(users[0].includes('password') || own.body.includes('$2b$'), 'no password column, no hash')
      const deleted = await post('test', { foo: 'gone' })
      await app.inject({ method: 'DELETE', url: `/api/test/${deleted}`, headers: { authorization: admin } })
      t.notOk((await app.inject({ url: '/csv/test' })).body.includes(deleted), 'soft-deleted documents are left out')
      t.ok(
        (await app.inject({ url: '/csv/test?showDeleted=1', headers: { authorization: admin } })).body.includes(
          deleted
        ),
        'unless showDeleted (for those who may)'
      )
      t.equal((await app.inject({ url: '/csv/test?showDeleted=1' })).statusCode, 403, 'not for others')
    })

    await t.test('callers who are not admins get at most CSV_MAX_ROWS rows', async t => {
      for (const foo of ['r1', 'r2', 'r3']) await post('test', { foo })
      const all = await app.inject({ url: '/csv/test' })
      t.equal(all.statusCode, 400, 'six rows for an anonymous caller: refused before any row is sent')
      t.match(JSON.parse(all.body), { code: 'QUERY_TOO_COMPLEX', message: /at most 5/ })
      t.equal((await app.inject({ url: '/csv/test?limit=6' })).statusCode, 400, 'a limit above the cap too')
      t.equal(
        rowsOf((await app.inject({ url: '/csv/test?limit=5&page=2' })).body).length,
        2,
        'pages within the cap are fine'
      )
      t.equal(
        rowsOf((await app.inject({ url: '/csv/test?filter[foo]=$regex:^r' })).body).length,
        4,
        'so is a filter that narrows it'
      )
      t.equal(
        rowsOf((await app.inject({ url: '/csv/test', headers: { authorization: admin } })).body).length,
        7,
        'admins have no cap'
      )
    })

    await t.test('a large export is streamed in batches', async t => {
      const model = app.models.get('link')
      const docs = Array.from({ length: 1234 }, (_, i) => ({
        ...newSystemFields({ ...ANONYMOUS, admin: true }),
        name: `bulk ${String(i).padStart(4, '0')}`,
        val: i
      }))
      await app.db.insertMany(model, docs)
      const res = await app.inject({ url: '/csv/link?sort=name&fields=name,val', headers: { authorization: admin } })
      t.equal(res.statusCode, 200)
      const rows = rowsOf(res.body).slice(1)
      t.equal(rows.length, 1235, 'every row (three database batches), plus the earlier link')
      t.same(
        rows.slice(0, 2).map(r => r.slice(1)),
        [
          ['bulk 0000', '0'],
          ['bulk 0001', '1']
        ],
        'in the sort order'
      )
      t.same(rows.at(-2)?.slice(1), ['bulk 1233', '1233'])
      t.equal(
        rowsOf((await app.inject({ url: '/csv/link?fields=name', headers: { authorization: admin } })).body).length,
        1236,
        'and the next export works too (the cursor was released)'
      )
    })
  })
}
