// Table-driven tests of the filter compiler: the exact SQL and bound values of representative
// checked filters (general and kind-hinted forms). Client errors: test/validation/check-query.test.ts.
import t from 'tap'
import type { FieldKind, Filter } from '../../../src/query/types.ts'
import { compileFilter, indexExpression } from '../../../src/compiler/filter/compile-filter.ts'
import { checkFilter } from '../../../src/validation/check-query.ts'
import { SqlParams } from '../../../src/compiler/sql-text.ts'
import type { Containment } from '../../../src/compiler/filter/compile-comparison.ts'

const KINDS: Record<string, FieldKind> = {
  name: 'string',
  age: 'number',
  active: 'boolean',
  createdAt: 'date',
  'yack.n': 'integer',
  tags: 'array'
}
const kindOf = (path: string): FieldKind | undefined => KINDS[path]

const CONTAINMENT: Record<string, Containment> = { age: 'value', 'yack.n': 'value', tags: 'element' }
const containment = (path: string): Containment | undefined => CONTAINMENT[path]

function compile(filter: Filter, hinted = false, contained = false): { sql: string; values: unknown[] } {
  const params = new SqlParams()
  const sql = compileFilter(checkFilter(filter), {
    params,
    doc: 't.doc',
    kindOf: hinted ? kindOf : undefined,
    containment: contained ? containment : undefined
  })
  return { sql, values: params.values }
}

/** The general equality's jsonpath (bound as a value): `values` are jsonpath literals. */
const eq = (path: string, ...values: string[]): string =>
  `lax ${path} ? (@.type() != "array" && (${values.map(v => `@ == ${v}`).join(' || ')}))`

interface Row {
  name: string
  filter: Filter
  hinted?: boolean
  contained?: boolean
  sql: string
  values: unknown[]
}

const ROWS: Row[] = [
  { name: 'empty filter', filter: {}, sql: 'TRUE', values: [] },
  {
    name: 'implicit equality',
    filter: { name: 'bob' },
    sql: 't.doc @? $1::jsonpath',
    values: [eq('$."name"', '"bob"')]
  },
  {
    name: 'equality on a string kind',
    filter: { name: 'bob' },
    hinted: true,
    sql: `(t.doc->>'name') COLLATE "C" = $1`,
    values: ['bob']
  },
  {
    name: 'equality on a boolean kind',
    filter: { active: true },
    hinted: true,
    sql: `NULLIF(t.doc->'active', 'null'::jsonb) = $1::text::jsonb`,
    values: ['true']
  },
  {
    name: 'equality on a nested integer kind',
    filter: { 'yack.n': 3 },
    hinted: true,
    sql: `NULLIF(t.doc->'yack'->'n', 'null'::jsonb) = $1::text::jsonb`,
    values: ['3']
  },
  {
    name: 'kind does not match the value: general form',
    filter: { age: 'old' },
    hinted: true,
    sql: 't.doc @? $1::jsonpath',
    values: [eq('$."age"', '"old"')]
  },
  {
    name: 'array kind: general form',
    filter: { tags: 'a' },
    hinted: true,
    sql: 't.doc @? $1::jsonpath',
    values: [eq('$."tags"', '"a"')]
  },
  {
    name: 'containment on a declared scalar',
    filter: { age: 30 },
    hinted: true,
    contained: true,
    sql: 't.doc @> $1::text::jsonb',
    values: ['{"age":30}']
  },
  {
    name: 'containment on a nested declared scalar',
    filter: { 'yack.n': 3 },
    hinted: true,
    contained: true,
    sql: 't.doc @> $1::text::jsonb',
    values: ['{"yack":{"n":3}}']
  },
  {
    name: "containment of a declared array's element",
    filter: { tags: 'a' },
    contained: true,
    sql: 't.doc @> $1::text::jsonb',
    values: ['{"tags":["a"]}']
  },
  {
    name: 'containment: a value of another kind',
    filter: { age: 'old' },
    hinted: true,
    contained: true,
    sql: 't.doc @> $1::text::jsonb',
    values: ['{"age":"old"}']
  },
  {
    name: '$in on a declared array: one jsonpath',
    filter: { tags: { $in: ['a', 'b', 'c'] } },
    contained: true,
    sql: 't.doc @? $1::jsonpath',
    values: ['lax $."tags" ? (((@ == "a") || (@ == "b")) || (@ == "c"))']
  },
  {
    name: 'null on a declared array: not containment',
    filter: { tags: null },
    contained: true,
    sql: `t.doc @? 'lax $ ? ((!exists(@."tags")) || (exists(@."tags" ? (@.type() == "null"))))'::jsonpath`,
    values: []
  },
  {
    name: 'range on a number kind',
    filter: { age: { $gt: 30 } },
    hinted: true,
    sql: `NULLIF(t.doc->'age', 'null'::jsonb) > $1::text::jsonb`,
    values: ['30']
  },
  {
    name: 'two ranges, general form',
    filter: { age: { $gte: 30, $lt: 40 } },
    sql:
      `(jsonb_path_exists(t.doc, 'lax $."age" ? (@.type() != "array" && @ >= $v)'::jsonpath, ` +
      `$1::text::jsonb)) AND (jsonb_path_exists(t.doc, 'lax $."age" ? (@.type() != "array" && @ < ` +
      `$v)'::jsonpath, $2::text::jsonb))`,
    values: ['{"v":30}', '{"v":40}']
  },
  {
    name: 'Date operand on a date kind',
    filter: { createdAt: { $gte: new Date('2024-01-02T03:04:05Z') } },
    hinted: true,
    sql: `(t.doc->>'createdAt') COLLATE "C" >= $1`,
    values: ['2024-01-02T03:04:05.000Z']
  },
  {
    name: 'Date operand, general form',
    filter: { d: new Date(0) },
    sql: 't.doc @? $1::jsonpath',
    values: [eq('$."d"', '"1970-01-01T00:00:00.000Z"')]
  },
  {
    name: 'null on a kind',
    filter: { name: null },
    hinted: true,
    sql: `(t.doc->>'name') COLLATE "C" IS NULL`,
    values: []
  },
  {
    name: 'null, general form',
    filter: { name: null },
    sql: `t.doc @? 'lax $ ? ((!exists(@."name")) || (exists(@."name" ? (@.type() == "null"))))'::jsonpath`,
    values: []
  },
  {
    name: 'null on a dotted path',
    filter: { 'a.b': null },
    sql:
      `t.doc @? 'lax $ ? ((!exists(@."a")) || (@."a".type() != "object" && @."a".type() != "array") || ` +
      `(exists(@."a" ? (@.type() == "object" && ((!exists(@."b")) || (exists(@."b" ? (@.type() == ` +
      `"null"))))))))'::jsonpath`,
    values: []
  },
  {
    name: '$ne on a kind',
    filter: { name: { $ne: 'x' } },
    hinted: true,
    sql: `((t.doc->>'name') COLLATE "C" = $1) IS NOT TRUE`,
    values: ['x']
  },
  {
    name: '$in on a kind',
    filter: { name: { $in: ['a', 'b'] } },
    hinted: true,
    sql: `(t.doc->>'name') COLLATE "C" = ANY(ARRAY(SELECT jsonb_array_elements_text($1::text::jsonb)))`,
    values: ['["a","b"]']
  },
  {
    name: '$in with null on a kind',
    filter: { age: { $in: [1, 2, null] } },
    hinted: true,
    sql:
      `((NULLIF(t.doc->'age', 'null'::jsonb) IS NULL) OR (NULLIF(t.doc->'age', 'null'::jsonb) = ` +
      `ANY(ARRAY(SELECT jsonb_array_elements($1::text::jsonb)))))`,
    values: ['[1,2]']
  },
  {
    name: '$in with a regular expression',
    filter: { tags: { $in: ['a', 5, /^b/i] } },
    sql: '((t.doc @? $1::jsonpath) OR (jsonb_path_exists(t.doc, $2::jsonpath)))',
    values: [
      'lax $."tags" ? (@.type() != "array" && ((@ == "a") || (@ == 5)))',
      'lax $."tags" ? (@.type() == "string" && @ like_regex "(?pi)^b")'
    ]
  },
  { name: '$nin: []', filter: { a: { $nin: [] } }, sql: '(FALSE) IS NOT TRUE', values: [] },
  {
    name: 'array value: equal to the array or to an element',
    filter: { tags: ['a', 'b'] },
    sql:
      `EXISTS (SELECT 1 FROM (SELECT jsonb_path_query(t.doc, 'lax $."tags"'::jsonpath) AS v UNION ALL ` +
      `SELECT jsonb_path_query(t.doc, 'lax $."tags"[*]'::jsonpath)) AS x WHERE x.v IN (SELECT ` +
      `jsonb_array_elements($1::text::jsonb)))`,
    values: ['[["a","b"]]']
  },
  {
    name: 'array index segment',
    filter: { 'items.0.sku': 'x' },
    sql: 't.doc @? $1::jsonpath',
    values: [eq('$ ? (@."items".type() == "array")."items"[0]."sku"', '"x"')]
  },
  {
    name: '$size',
    filter: { tags: { $size: 2 } },
    sql:
      `jsonb_path_exists(t.doc, 'lax $ ? (@."tags".type() == "array" && @."tags".size() == $n)'::jsonpath, ` +
      `$1::text::jsonb)`,
    values: ['{"n":2}']
  },
  {
    name: '$type array',
    filter: { tags: { $type: 'array' } },
    sql: `t.doc @? 'lax $."tags".type() ? (@ == "array")'::jsonpath`,
    values: []
  },
  {
    name: '$type list',
    filter: { n: { $type: ['int', 10] } },
    sql:
      `((t.doc @? 'lax $."n" ? (@.type() == "number" && @.floor() == @)'::jsonpath) OR (t.doc @? 'lax $."n" ` +
      `? (@.type() == "null")'::jsonpath))`,
    values: []
  },
  {
    name: '$exists: false',
    filter: { x: { $exists: false } },
    sql: `(t.doc @? 'lax $."x"'::jsonpath) IS NOT TRUE`,
    values: []
  },
  {
    name: '$regex on a string kind',
    filter: { name: { $regex: '^a.b$', $options: 'ms' } },
    hinted: true,
    sql: `(t.doc->>'name') ~ $1`,
    values: ['(?w)^a.b$']
  },
  {
    name: 'RegExp value',
    filter: { name: /x/i },
    sql: 'jsonb_path_exists(t.doc, $1::jsonpath)',
    values: ['lax $."name" ? (@.type() == "string" && @ like_regex "(?pi)x")']
  },
  {
    name: '$elemMatch on documents',
    filter: { items: { $elemMatch: { sku: 'a', qty: { $gt: 1 } } } },
    sql:
      `EXISTS (SELECT 1 FROM (SELECT jsonb_path_query(t.doc, 'lax $ ? (@."items".type() == ` +
      `"array")."items"[*]'::jsonpath) AS v) AS e1 WHERE jsonb_typeof(e1.v) = 'object' AND (e1.v @? ` +
      `$1::jsonpath) AND (jsonb_path_exists(e1.v, 'lax $."qty" ? (@.type() != "array" && @ > $v)'::jsonpath, ` +
      `$2::text::jsonb)))`,
    values: [eq('$."sku"', '"a"'), '{"v":1}']
  },
  {
    name: '$elemMatch on values',
    filter: { scores: { $elemMatch: { $gte: 80, $lt: 85 } } },
    sql:
      `EXISTS (SELECT 1 FROM (SELECT jsonb_path_query(t.doc, 'lax $ ? (@."scores".type() == ` +
      `"array")."scores"[*]'::jsonpath) AS v) AS e1 WHERE (jsonb_path_exists(jsonb_build_object('v', e1.v), ` +
      `'lax $."v" ? (@.type() != "array" && @ >= $v)'::jsonpath, $1::text::jsonb)) AND ` +
      `(jsonb_path_exists(jsonb_build_object('v', e1.v), 'lax $."v" ? (@.type() != "array" && @ < ` +
      `$v)'::jsonpath, $2::text::jsonb)))`,
    values: ['{"v":80}', '{"v":85}']
  },
  {
    name: '$all with $elemMatch',
    filter: { tags: { $all: ['a', { $elemMatch: { $eq: 'b' } }] } },
    sql:
      `(t.doc @? $1::jsonpath) AND (EXISTS (SELECT 1 FROM (SELECT jsonb_path_query(t.doc, 'lax $ ? ` +
      `(@."tags".type() == "array")."tags"[*]'::jsonpath) AS v) AS e1 WHERE jsonb_build_object('v', e1.v) @? ` +
      `$2::jsonpath))`,
    values: [eq('$."tags"', '"a"'), eq('$."v"', '"b"')]
  },
  { name: '$all: []', filter: { tags: { $all: [] } }, sql: 'FALSE', values: [] },
  {
    name: '$or beside a field, $not',
    filter: { $or: [{ a: 1 }, { b: 2 }], c: { $not: { $gt: 5 } } },
    sql:
      `(((t.doc @? $1::jsonpath) OR (t.doc @? $2::jsonpath))) AND ((jsonb_path_exists(t.doc, 'lax $."c" ? ` +
      `(@.type() != "array" && @ > $v)'::jsonpath, $3::text::jsonb)) IS NOT TRUE)`,
    values: [eq('$."a"', '1'), eq('$."b"', '2'), '{"v":5}']
  },
  {
    name: '$nor',
    filter: { $nor: [{ a: 1 }] },
    sql: '(t.doc @? $1::jsonpath) IS NOT TRUE',
    values: [eq('$."a"', '1')]
  },
  {
    name: 'quotes and backslashes stay in the bound value',
    filter: { name: "x' OR 1=1; --\\" },
    hinted: true,
    sql: `(t.doc->>'name') COLLATE "C" = $1`,
    values: ["x' OR 1=1; --\\"]
  },
  {
    name: 'quotes in a general form',
    filter: { name: '"); DROP TABLE t; --' },
    sql: 't.doc @? $1::jsonpath',
    values: [eq('$."name"', '"\\"); DROP TABLE t; --"')]
  },
  {
    name: 'quotes in a regular expression',
    filter: { name: { $regex: `a"' \\)` } },
    sql: 'jsonb_path_exists(t.doc, $1::jsonpath)',
    values: [`lax $."name" ? (@.type() == "string" && @ like_regex "(?p)a\\"' \\\\)")`]
  }
]

t.test('exact SQL and values', async t => {
  for (const row of ROWS)
    t.same(compile(row.filter, row.hinted, row.contained), { sql: row.sql, values: row.values }, row.name)
})

t.test('every result can be an AND operand', async t => {
  const { sql } = compile({ $or: [{ a: 1 }, { b: 1 }] })
  t.match(sql, /^\(.*\)$/, 'an OR comes parenthesized')
})

t.test('index expressions per kind, shared with the DDL', async t => {
  t.equal(indexExpression('doc', 'name', 'string'), `(doc->>'name') COLLATE "C"`)
  t.equal(indexExpression('doc', 'createdAt', 'date'), `(doc->>'createdAt') COLLATE "C"`)
  t.equal(indexExpression('doc', 'yack.n', 'integer'), `NULLIF(doc->'yack'->'n', 'null'::jsonb)`)
  t.equal(indexExpression('doc', 'active', 'boolean'), `NULLIF(doc->'active', 'null'::jsonb)`)
  t.equal(indexExpression('doc', 'tags', 'array'), `doc->'tags'`, 'no scalar form: the jsonb value')
  t.equal(
    indexExpression('doc', 'items.0.sku', 'string'),
    `doc->'items'->0->'sku'`,
    'array index on the path: no scalar form'
  )
  t.throws(() => indexExpression('doc', "a'b", 'string'), { code: 'INVALID_FIELD' })
})
