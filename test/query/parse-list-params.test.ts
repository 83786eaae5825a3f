// Table-driven tests of the URL parameter parser: each query string becomes the
// expected neutral filter, sort, paging and populate requests, or a 400.
import t from 'tap'
import { parseListParams, type QueryParams } from '../../src/query/parse-list-params.ts'
import { parseModelFile } from '../../src/models/load-models.ts'

const model = parseModelFile(
  JSON.stringify({
    name: 'thing',
    fields: {
      name: { type: 'string' },
      n: { type: 'number' },
      ok: { type: 'boolean' },
      when: { type: 'date' },
      tags: { type: 'array', items: { type: 'string' } },
      nums: { type: 'array', items: { type: 'integer' } },
      yack: { type: 'object', properties: { n: { type: 'number' }, s: { type: 'string' } } },
      owner_id: { type: 'id', link: 'thing' }
    }
  }),
  'test'
)

const filters: Array<[string, QueryParams, unknown]> = [
  ['plain string equality', { 'filter[name]': 'bob' }, { name: 'bob' }],
  ['number is coerced', { 'filter[n]': '5' }, { n: 5 }],
  ['boolean is coerced', { 'filter[ok]': 'true' }, { ok: true }],
  ['date from ISO', { 'filter[when]': '2024-01-02' }, { when: '2024-01-02T00:00:00.000Z' }],
  ['date from Unix seconds', { 'filter[when]': '$gt:1700000000' }, { when: { $gt: '2023-11-14T22:13:20.000Z' } }],
  ['comparison on a number', { 'filter[n]': '$gte:2.5' }, { n: { $gte: 2.5 } }],
  ['$ne', { 'filter[name]': '$ne:x' }, { name: { $ne: 'x' } }],
  ['$in with brackets', { 'filter[n]': '$in:[1,2,3]' }, { n: { $in: [1, 2, 3] } }],
  ['$nin without brackets', { 'filter[name]': '$nin:a,b' }, { name: { $nin: ['a', 'b'] } }],
  ['$exists', { 'filter[name]': '$exists:false' }, { name: { $exists: false } }],
  ['$regex with flags', { 'filter[name]': '$regex:/^bo+b$/im' }, { name: { $regex: '^bo+b$', $options: 'im' } }],
  ['$regex without slashes', { 'filter[name]': '$regex:bo' }, { name: { $regex: 'bo' } }],
  ['array element kind', { 'filter[nums]': '7' }, { nums: 7 }],
  ['dotted path kind', { 'filter[yack.n]': '$gt:3' }, { 'yack.n': { $gt: 3 } }],
  ['repeated key combines', { 'filter[n]': ['$gte:1', '$lt:5'] }, { $and: [{ n: { $gte: 1 } }, { n: { $lt: 5 } }] }],
  ['two fields', { 'filter[n]': '1', 'filter[name]': 'a' }, { n: 1, name: 'a' }],
  [
    'search[field] is a literal case-insensitive regex',
    { 'search[name]': 'a.b*' },
    { name: { $regex: 'a\\.b\\*', $options: 'i' } }
  ],
  ['null', { 'filter[name]': 'null' }, { name: null }]
]

for (const [name, query, expected] of filters) {
  t.test(name, async t => {
    t.same(parseListParams(model, query).filter, expected)
  })
}

t.test('sort, fields, paging, populate', async t => {
  const p = parseListParams(model, {
    sort: '-n,name',
    'sort[when]': '-1',
    fields: 'name,n',
    limit: '10',
    page: '3',
    populate: 'owner',
    showDeleted: 'true'
  })
  t.same(p.sort, [
    ['n', -1],
    ['name', 1],
    ['when', -1]
  ])
  t.same(p.fields, ['name', 'n'])
  t.equal(p.limit, 10)
  t.equal(p.page, 3)
  t.same([...p.populate], [['owner', undefined]])
  t.equal(p.showDeleted, true)
  t.same([...parseListParams(model, { 'populate[owner]': 'name,n' }).populate], [['owner', ['name', 'n']]])
  t.same([...parseListParams(model, { 'populate[]': 'owner' }).populate], [['owner', undefined]])
  t.equal(parseListParams(model, {}).page, 1)
  t.equal(parseListParams(model, { apikey: 'k', jwt: 'j' }).page, 1, 'credential parameters are ignored')
})

t.test("JXP clients' habits", async t => {
  const p = parseListParams(model, {
    count: 'true',
    skip: '20',
    _: '1712345678901',
    showDeleted: '1',
    autopopulate: '1',
    limit: '0',
    page: '0',
    'sort[n]': 'desc',
    'sort[name]': 'asc'
  })
  t.same(
    [p.skip, p.showDeleted, p.autopopulate, p.limit, p.page],
    [20, true, true, undefined, 1],
    'skip, flags as 1, limit=0 and page=0 as not given, a cache buster ignored'
  )
  t.same(
    p.sort,
    [
      ['n', -1],
      ['name', 1]
    ],
    'sort[field]=asc|desc'
  )
  t.same(
    parseListParams(model, { sort: '-n name' }).sort,
    [
      ['n', -1],
      ['name', 1]
    ],
    'a Mongoose sort string (spaces)'
  )
  t.same(
    parseListParams(model, { 'filter[n][$gt]': '3', 'filter[name][$regex]': '/^a/i' }).filter,
    { n: { $gt: 3 }, name: { $regex: '^a', $options: 'i' } },
    'filter[field][$op]=value'
  )
  t.same(
    parseListParams(model, { showDeleted: '0', autopopulate: 'false' }),
    parseListParams(model, {}),
    '0 and false are off'
  )
  t.same(parseListParams(model, { search: '' }).search, undefined, 'an empty search is no search')
  t.same(parseListParams(model, { callback: 'x', format: 'json', v: '2' }).filter, {}, 'other parameters are ignored')
})

const errors: Array<[string, QueryParams, string]> = [
  ['non-number for a number field', { 'filter[n]': 'abc' }, 'INVALID_QUERY'],
  ['bad boolean', { 'filter[ok]': 'yes' }, 'INVALID_QUERY'],
  ['bad date', { 'filter[when]': 'tomorrow' }, 'INVALID_QUERY'],
  ['negative page', { page: '-1' }, 'BAD_REQUEST'],
  ['limit not a number', { limit: '10abc' }, 'BAD_REQUEST'],
  ['a misspelled parameter', { filters: 'x' }, 'BAD_REQUEST'],
  ['a misspelled parameter (one letter off)', { limt: '5' }, 'BAD_REQUEST'],
  ['a parameter in the wrong case', { showdeleted: '1' }, 'BAD_REQUEST'],
  ['a misspelled bracketed parameter', { 'fitler[name]': 'x' }, 'BAD_REQUEST'],
  ['a filter nested too deep', { 'filter[name][$gt][x]': 'a' }, 'BAD_REQUEST'],
  ['a bracketed operator that is not one', { 'filter[name][x]': 'a' }, 'BAD_REQUEST'],
  ['a second bracket on sort', { 'sort[name][x]': '1' }, 'BAD_REQUEST'],
  ['an unknown bracketed operator', { 'filter[n][$near]': '1' }, 'INVALID_QUERY'],
  ['a bad flag', { showDeleted: 'yes' }, 'BAD_REQUEST'],
  ['a bad count flag', { count: 'maybe' }, 'BAD_REQUEST'],
  ['a negative skip', { skip: '-1' }, 'BAD_REQUEST'],
  ['bad sort direction', { 'sort[n]': '2' }, 'BAD_REQUEST'],
  ['very long value', { 'filter[name]': 'x'.repeat(1001) }, 'QUERY_TOO_COMPLEX'],
  [
    'too many filters',
    Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`filter[f${i}]`, 'x'])),
    'QUERY_TOO_COMPLEX'
  ],
  ['limit twice', { limit: ['1', '2'] }, 'BAD_REQUEST'],
  // A bare filter was ignored: the list came back whole.
  ['a filter without a field', { filter: 'foo' }, 'BAD_REQUEST']
]

for (const [name, query, code] of errors) {
  t.test(`rejects ${name}`, async t => {
    t.throws(() => parseListParams(model, query), { code, status: 400 }, 'a 400 with the stable code')
  })
}
