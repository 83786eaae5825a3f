// Tests of the projection compiler: exact SQL, limits, and the projected documents on PGlite.
import t from 'tap'
import { PGlite } from '@electric-sql/pglite'
import { compileProjection, MAX_PROJECTION_FIELDS } from '../../src/sql/compile-projection.ts'
import { SqlParams } from '../../src/sql/sql-params.ts'

const project = (fields: string[] | undefined, exclude: string[] = ['password']): string =>
  compileProjection(fields, { params: new SqlParams(), doc: 't.doc' }, { exclude })

t.test('exact SQL', async t => {
  t.equal(project(undefined, []), 't.doc', 'the whole document')
  t.equal(project(undefined, ['password', 'secret']), `(t.doc - 'password' - 'secret')`, 'minus excluded fields')
  t.equal(project(['_id', 'password']), `jsonb_build_object('_id', t.doc->'_id', 'id', t.doc->'_id')`, 'only ids')
  t.equal(project(['name']),
    `jsonb_build_object('_id', t.doc->'_id', 'id', t.doc->'_id') || CASE WHEN t.doc ? 'name' THEN jsonb_build_object('name', t.doc->'name') ELSE '{}'::jsonb END`,
    'a top-level field, only when present')
})

t.test('limits and bad input', async t => {
  const many = Array.from({ length: MAX_PROJECTION_FIELDS + 1 }, (_, i) => `f${i}`)
  t.throws(() => project(many), { code: 'QUERY_TOO_COMPLEX' }, `more than ${MAX_PROJECTION_FIELDS} fields`)
  t.doesNotThrow(() => project(many.slice(1)), `${MAX_PROJECTION_FIELDS} fields`)
  t.throws(() => project(["a'b"]), { code: 'INVALID_FIELD' }, 'bad field name')
  t.throws(() => project(['a;drop']), { code: 'INVALID_FIELD' }, 'injection attempt')
})

const DOC = {
  _id: 'x1',
  name: 'x',
  password: '$2b$10$hash',
  yack: { n: 1, s: 'q' },
  items: [{ sku: 'k', qty: 1 }, 5, { qty: 2 }],
  scalar: 7,
  nothing: null
}

const CASES: Array<[string[] | undefined, unknown]> = [
  [undefined, { _id: 'x1', name: 'x', yack: { n: 1, s: 'q' }, items: [{ sku: 'k', qty: 1 }, 5, { qty: 2 }], scalar: 7, nothing: null }],
  [['name', 'nothing', 'missing'], { _id: 'x1', id: 'x1', name: 'x', nothing: null }],
  [['yack.n', 'items.sku', 'scalar.deep', 'password'], { _id: 'x1', id: 'x1', yack: { n: 1 }, items: [{ sku: 'k' }, {}] }],
  [['yack', 'yack.n'], { _id: 'x1', id: 'x1', yack: { n: 1, s: 'q' } }],
  [['yack.n', 'yack'], { _id: 'x1', id: 'x1', yack: { n: 1, s: 'q' } }]
]

t.test('projected documents on PGlite', async t => {
  const db = new PGlite()
  t.teardown(async () => await db.close())
  for (const [fields, expected] of CASES) {
    const { rows } = await db.query<{ d: unknown }>(`SELECT ${project(fields)} AS d FROM (SELECT $1::text::jsonb AS doc) t`, [JSON.stringify(DOC)])
    t.same(rows[0].d, expected, JSON.stringify(fields))
  }
})
