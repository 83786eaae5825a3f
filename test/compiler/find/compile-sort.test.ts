// Tests of the sort compiler: exact ORDER BY text and limits. MongoDB's order across types is
// checked on PostgreSQL in sql-on-postgres.test.ts.
import t from 'tap'
import type { FieldKind, Sort } from '../../../src/query/types.ts'
import { compileSort } from '../../../src/compiler/find/compile-find.ts'
import { SqlParams } from '../../../src/compiler/sql-text.ts'

const KINDS: Record<string, FieldKind> = { name: 'string', age: 'number', createdAt: 'date', tags: 'array' }

function sortSql(sort: Sort, hinted = true): string {
  return compileSort(sort, {
    params: new SqlParams(),
    doc: 't.doc',
    idColumn: 't._id',
    kindOf: hinted ? path => KINDS[path] : undefined
  })
}

t.test('exact ORDER BY lists', async t => {
  t.equal(sortSql([]), 't._id ASC', 'no sort: the id alone')
  t.equal(
    sortSql([
      ['name', 1],
      ['age', -1]
    ]),
    `(t.doc->>'name') COLLATE "C" ASC NULLS FIRST, NULLIF(t.doc->'age', 'null'::jsonb) DESC NULLS LAST, t._id DESC`,
    "scalar kinds; ties by _id in the last key's direction"
  )
  t.equal(
    sortSql([
      ['createdAt', -1],
      ['_id', -1]
    ]),
    `(t.doc->>'createdAt') COLLATE "C" DESC NULLS LAST, t._id DESC`,
    'no tiebreaker after _id'
  )
  const general = sortSql([['tags', 1]])
  t.match(
    general,
    /^\(SELECT ROW\(CASE jsonb_typeof\(k\.v\) WHEN 'null' THEN 1 .* AS k\) ASC, t\._id ASC$/,
    'array kind: one type-ordered row key'
  )
  t.match(general, /jsonb_path_query\(t\.doc, 'lax \$\."tags"\[\*\]'::jsonpath\)/, 'elements come from a jsonpath')
  t.equal(
    sortSql([['name', 1]], false).split('COLLATE "C"').length,
    3,
    'without a kind, strings still compare in byte order'
  )
})

t.test('bad input', async t => {
  t.throws(() => sortSql([['a', 0 as 1]]), { code: 'INVALID_QUERY' }, 'direction 0')
  t.throws(() => sortSql([["a'b", 1]]), { code: 'INVALID_FIELD' }, 'bad field name')
})
