// The compiled SQL executed on a throwaway PostgreSQL server (one connection, so that session
// settings hold): regular expressions match as PCRE does, MongoDB's own expected results hold, sorts follow MongoDB's
// order, projections have the
// right shape, and the planner uses the indexes built from indexExpression().
import t from 'tap'
import postgres from 'postgres'
import type { FieldKind, Filter, Sort } from '../../../src/query/types.ts'
import { compileFilter, indexExpression } from '../../../src/compiler/filter/compile-filter.ts'
import { compileProjection } from '../../../src/compiler/find/compile-projection.ts'
import { compileRegex } from '../../../src/validation/regex/regex-dialect.ts'
import { compileSort } from '../../../src/compiler/find/compile-find.ts'
import { SqlParams, type SqlValue } from '../../../src/compiler/sql-text.ts'
import { startPgCluster } from '../../helpers/throwaway-cluster.ts'
import { NULL_CASES, NULL_DOCS, SINGLE_CASES } from './mongo-semantics-cases.ts'

const cluster = await startPgCluster()
const sql = postgres(cluster.url, { max: 1, onnotice: () => {} })
t.teardown(async () => {
  await sql.end()
  await cluster.stop()
})

/** One statement with bound parameters, or (without) several separated by semicolons. */
const db = {
  query: async <R = Record<string, unknown>>(text: string, values: SqlValue[] = []): Promise<{ rows: R[] }> => ({
    rows: [...(await sql.unsafe(text, values as never[]))] as R[]
  }),
  exec: async (text: string): Promise<void> => {
    await sql.unsafe(text).simple()
  }
}

const describe = (value: unknown): string => JSON.stringify(value, (_, v) => (v instanceof RegExp ? String(v) : v))

/** Replaces the rows of table `docs` (created on first use). */
async function loadDocs(docs: Array<Record<string, unknown>>): Promise<void> {
  await db.exec('CREATE TABLE IF NOT EXISTS docs (_id text PRIMARY KEY, doc jsonb NOT NULL); TRUNCATE docs')
  await db.query("INSERT INTO docs SELECT d->>'_id', d FROM jsonb_array_elements($1::text::jsonb) AS d", [
    JSON.stringify(docs)
  ])
}

async function selectIds(
  filter: Filter,
  sort: Sort = [],
  kindOf?: (path: string) => FieldKind | undefined
): Promise<string> {
  const params = new SqlParams()
  const where = compileFilter(filter, { params, doc: 't.doc', kindOf })
  const order = compileSort(sort, { params, doc: 't.doc', idColumn: 't._id', kindOf })
  const { rows } = await db.query<{ _id: string }>(
    `SELECT t._id FROM docs t WHERE ${where} ORDER BY ${order}`,
    params.values
  )
  return rows.map(r => r._id).join(',')
}

/** [pattern, flags, subject, PCRE's answer] */
const MATCHES: Array<[string, string, string, boolean]> = [
  ['a.b', '', 'a\nb', false],
  ['a.b', 's', 'a\nb', true],
  ['a.b', 'm', 'a\nb', false],
  ['a.b', 'ms', 'a\nb', true],
  ['^b', '', 'a\nb', false],
  ['^b', 'm', 'a\nb', true],
  ['^b', 's', 'a\nb', false],
  ['^b', 'ms', 'a\nb', true],
  ['a$', '', 'a\nb', false],
  ['a$', 'm', 'a\nb', true],
  ['a$', 'ms', 'a\nb', true],
  ['b$', '', 'a\nb', true],
  ['ABC', 'i', 'xabcx', true],
  ['ABC', '', 'xabcx', false],
  ['[^x]', '', '\n', true],
  ['[^x]', 'm', '\n', true],
  ['[^\\n]', '', '\n', false],
  ['a[^b]c', '', 'a\nc', true],
  ['a b # spaced\n c', 'x', 'abc', true],
  ['a b', 'x', 'a b', false],
  ['\\bfoo\\b', '', 'a foo.', true],
  ['\\bfoo\\b', '', 'afoo', false],
  ['(?<=a)b', '', 'ab', true],
  ['(?<!a)b', '', 'ab', false],
  ['\\x41', '', 'A', true],
  ['a{,3}', '', 'a{,3}', true],
  ['[^\\x0b-\\x7f]', '', '\n', true],
  ['"\'\\\\', '', '"\'\\', true],
  ['^$', 'm', 'a\n\nb', true],
  ['.', '', '😀', true]
]

t.test('regular expressions match as in PCRE, with ~ and with like_regex', async t => {
  for (const [pattern, flags, subject, expected] of MATCHES) {
    const are = compileRegex({ pattern, flags })
    const { rows } = await db.query<{ op: boolean; path: boolean }>(
      "SELECT $1::text ~ $2 AS op, jsonb_path_exists(jsonb_build_object('s', $1::text), $3::jsonpath) AS path",
      [subject, are, `lax $.s ? (@ like_regex ${JSON.stringify(are)})`]
    )
    t.same(
      [rows[0].op, rows[0].path],
      [expected, expected],
      `/${JSON.stringify(pattern).slice(1, -1)}/${flags} on ${JSON.stringify(subject)}`
    )
  }
})

t.test('patterns at the cost bound compile and run', async t => {
  const subject = 'a'.repeat(5000)
  for (const pattern of ['(a{1,31}){1,31}b', '((a{1,9}){1,9}){1,9}$', `${'(?=a)'.repeat(10)}(?:a{245}){4}`]) {
    const { rows } = await db.query<{ m: boolean }>('SELECT $1::text ~ $2 AS m', [
      subject,
      compileRegex({ pattern, flags: '' })
    ])
    t.same(rows, [{ m: !pattern.endsWith('b') }], pattern.slice(0, 40))
  }
})

t.test('MongoDB semantics (its jstests)', async t => {
  await loadDocs(Object.entries(NULL_DOCS).map(([_id, doc]) => ({ ...(doc as object), _id })))
  for (const [filter, ids] of NULL_CASES) t.equal(await selectIds(filter), [...ids].sort().join(','), describe(filter))
  for (const [doc, filter, matches] of SINGLE_CASES) {
    await loadDocs([{ ...doc, _id: 'x' }])
    t.equal(await selectIds(filter), matches ? 'x' : '', `${describe(filter)} on ${JSON.stringify(doc)}`)
  }
})

const SORT_DOCS = [
  { _id: 'a', v: 5, arr: [3, 9] },
  { _id: 'b', v: 'str', arr: [] },
  { _id: 'c', arr: [1, 'z'] },
  { _id: 'd', v: null, arr: 0 },
  { _id: 'e', v: true, arr: [true] },
  { _id: 'f', v: 2.5, arr: [null, 8] },
  { _id: 'g', v: { x: 1 }, arr: 'm' },
  { _id: 'h', v: 'Str' }
]

/**
 * MongoDB's order: missing = null < numbers < strings < objects < booleans; arrays by min (asc) or max (desc), []
 * first; ties by _id in the last key's direction.
 */
const ORDERS: Array<[Sort, string]> = [
  [[['v', 1]], 'c,d,f,a,h,b,g,e'],
  [[['v', -1]], 'e,g,b,h,a,f,d,c'],
  [[['arr', 1]], 'b,f,h,d,c,a,g,e'],
  [[['arr', -1]], 'e,c,g,a,f,d,h,b'],
  [
    [
      ['v', -1],
      ['arr', 1]
    ],
    'e,g,b,h,a,f,d,c'
  ]
]

t.test('MongoDB sort order', async t => {
  await loadDocs(SORT_DOCS)
  for (const [sort, expected] of ORDERS) t.equal(await selectIds({}, sort), expected, JSON.stringify(sort))
})

const PROJECTED = {
  _id: 'x1',
  name: 'x',
  password: '$2b$10$hash',
  yack: { n: 1, s: 'q' },
  items: [{ sku: 'k', qty: 1 }, 5, { qty: 2 }],
  scalar: 7,
  nothing: null
}

const PROJECTIONS: Array<[string[] | undefined, unknown]> = [
  [
    undefined,
    {
      _id: 'x1',
      name: 'x',
      yack: { n: 1, s: 'q' },
      items: [{ sku: 'k', qty: 1 }, 5, { qty: 2 }],
      scalar: 7,
      nothing: null
    }
  ],
  [['name', 'nothing', 'missing'], { _id: 'x1', id: 'x1', name: 'x', nothing: null }],
  [
    ['yack.n', 'items.sku', 'scalar.deep', 'password'],
    { _id: 'x1', id: 'x1', yack: { n: 1 }, items: [{ sku: 'k' }, {}] }
  ],
  [['yack', 'yack.n'], { _id: 'x1', id: 'x1', yack: { n: 1, s: 'q' } }],
  [['yack.n', 'yack'], { _id: 'x1', id: 'x1', yack: { n: 1, s: 'q' } }]
]

t.test('projected documents', async t => {
  for (const [fields, expected] of PROJECTIONS) {
    const expr = compileProjection(fields, { params: new SqlParams(), doc: 't.doc' }, { exclude: ['password'] })
    const { rows } = await db.query<{ d: unknown }>(`SELECT ${expr} AS d FROM (SELECT $1::text::jsonb AS doc) t`, [
      JSON.stringify(PROJECTED)
    ])
    t.same(rows[0].d, expected, JSON.stringify(fields))
  }
})

const KINDS: Record<string, FieldKind> = {
  name: 'string',
  age: 'number',
  active: 'boolean',
  createdAt: 'date',
  'yack.n': 'integer'
}
const INDEXED = Object.keys(KINDS)

const PLANS: Array<[string, Filter, Sort, string]> = [
  ['string equality', { name: 'n7' }, [], 'name'],
  ['number range', { age: { $gte: 10, $lt: 12 } }, [], 'age'],
  ['nested integer', { 'yack.n': 3 }, [], 'yack.n'],
  ['date range with a Date', { createdAt: { $gt: new Date('2024-03-01') } }, [], 'createdAt'],
  ['$in', { name: { $in: ['n1', 'n2'] } }, [], 'name'],
  ['null or missing', { name: null }, [], 'name'],
  ['ascending sort', {}, [['age', 1]], 'age'],
  ['descending sort', {}, [['createdAt', -1]], 'createdAt']
]

t.test('the planner uses indexes on indexExpression()', async t => {
  await db.exec(`CREATE TABLE idx (_id text PRIMARY KEY, doc jsonb NOT NULL);
    INSERT INTO idx SELECT 'd' || i, jsonb_build_object('name', 'n' || (i % 500), 'age', i % 90, 'active', i % 2 = 0,
      'yack', jsonb_build_object('n', i % 50),
      'createdAt', to_char(timestamp '2024-01-01' + i * interval '1 hour', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
    FROM generate_series(1, 5000) i`)
  for (const [i, path] of INDEXED.entries())
    await db.exec(`CREATE INDEX ix${i} ON idx ((${indexExpression('doc', path, KINDS[path])}) NULLS FIRST)`)
  await db.exec('ANALYZE idx; SET enable_seqscan = off')
  const kindOf = (path: string): FieldKind | undefined => KINDS[path]
  for (const [name, filter, sort, path] of PLANS) {
    const params = new SqlParams()
    const where = compileFilter(filter, { params, doc: 't.doc', kindOf })
    const order =
      sort.length > 0
        ? ` ORDER BY ${compileSort(sort, { params, doc: 't.doc', idColumn: 't._id', kindOf })} LIMIT 10`
        : ''
    const { rows } = await db.query<Record<string, string>>(
      `EXPLAIN SELECT t._id FROM idx t WHERE ${where}${order}`,
      params.values
    )
    const plan = rows.map(r => r['QUERY PLAN']).join('\n')
    t.match(plan, new RegExp(`Index Scan( Backward)? (using|on) ix${INDEXED.indexOf(path)}\\b`), name, { plan })
  }
  await db.exec('RESET enable_seqscan')
})
