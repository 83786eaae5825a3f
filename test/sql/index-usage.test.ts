// The index expressions the DDL takes from indexExpression() serve the compiled filters and
// sorts: PGlite's planner picks them for equality, ranges, $in, null and both sort directions.
import t from 'tap'
import { PGlite } from '@electric-sql/pglite'
import type { FieldKind, Filter, Sort } from '../../src/query/types.ts'
import { compileFilter, indexExpression } from '../../src/sql/compile-filter.ts'
import { compileSort } from '../../src/sql/compile-sort.ts'
import { SqlParams } from '../../src/sql/sql-params.ts'

const KINDS: Record<string, FieldKind> = { name: 'string', age: 'number', active: 'boolean', createdAt: 'date', 'yack.n': 'integer' }
const kindOf = (path: string): FieldKind | undefined => KINDS[path]

t.test('index expressions per kind', async t => {
  t.equal(indexExpression('doc', 'name', 'string'), `(doc->>'name') COLLATE "C"`)
  t.equal(indexExpression('doc', 'createdAt', 'date'), `(doc->>'createdAt') COLLATE "C"`)
  t.equal(indexExpression('doc', 'yack.n', 'integer'), `NULLIF(doc->'yack'->'n', 'null'::jsonb)`)
  t.equal(indexExpression('doc', 'active', 'boolean'), `NULLIF(doc->'active', 'null'::jsonb)`)
  t.equal(indexExpression('doc', 'tags', 'array'), `doc->'tags'`, 'no scalar form: the jsonb value')
  t.equal(indexExpression('doc', 'items.0.sku', 'string'), `doc->'items'->0->'sku'`, 'array index on the path: no scalar form')
  t.throws(() => indexExpression('doc', "a'b", 'string'), { code: 'INVALID_FIELD' })
})

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

t.test('the planner uses the indexes', async t => {
  const db = new PGlite()
  t.teardown(async () => await db.close())
  await db.exec(`CREATE TABLE docs (_id text PRIMARY KEY, doc jsonb NOT NULL);
    INSERT INTO docs SELECT 'd' || i, jsonb_build_object('name', 'n' || (i % 500), 'age', i % 90, 'active', i % 2 = 0,
      'yack', jsonb_build_object('n', i % 50), 'createdAt', to_char(timestamp '2024-01-01' + i * interval '1 hour', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
    FROM generate_series(1, 5000) i`)
  for (const [i, path] of Object.keys(KINDS).entries()) {
    await db.exec(`CREATE INDEX ix${i} ON docs ((${indexExpression('doc', path, KINDS[path])}) NULLS FIRST)`)
  }
  await db.exec('ANALYZE docs; SET enable_seqscan = off')
  for (const [name, filter, sort, path] of PLANS) {
    const params = new SqlParams()
    const where = compileFilter(filter, { params, doc: 't.doc', kindOf })
    const order = sort.length > 0 ? ` ORDER BY ${compileSort(sort, { params, doc: 't.doc', idColumn: 't._id', kindOf })} LIMIT 10` : ''
    const { rows } = await db.query<Record<string, string>>(`EXPLAIN SELECT t._id FROM docs t WHERE ${where}${order}`, params.values)
    const plan = rows.map(r => r['QUERY PLAN']).join('\n')
    t.match(plan, new RegExp(`Index Scan( Backward)? (using|on) ix${Object.keys(KINDS).indexOf(path)}\\b`), name, { plan })
  }
})
