// Tests of the projection compiler: exact SQL and limits. The projected documents are checked
// on PostgreSQL in sql-on-postgres.test.ts.
import t from 'tap'
import { compileProjection, MAX_PROJECTION_FIELDS } from '../../../src/compiler/find/compile-projection.ts'
import { SqlParams } from '../../../src/compiler/sql-text.ts'

const project = (fields: string[] | undefined, exclude: string[] = ['password']): string =>
  compileProjection(fields, { params: new SqlParams(), doc: 't.doc' }, { exclude })

t.test('exact SQL', async t => {
  t.equal(project(undefined, []), 't.doc', 'the whole document')
  t.equal(
    project(undefined, ['password', 'secret']),
    `(CASE WHEN t.doc ?| ARRAY['password', 'secret'] THEN t.doc - 'password' - 'secret' ELSE t.doc END)`,
    'minus excluded fields'
  )
  t.equal(
    project(undefined),
    `(CASE WHEN t.doc ? 'password' THEN t.doc - 'password' ELSE t.doc END)`,
    'copied only when it holds one'
  )
  t.equal(project(['_id', 'password']), `jsonb_build_object('_id', t.doc->'_id', 'id', t.doc->'_id')`, 'only ids')
  t.equal(
    project(['name']),
    `jsonb_build_object('_id', t.doc->'_id', 'id', t.doc->'_id') || CASE WHEN t.doc ? 'name' THEN ` +
      `jsonb_build_object('name', t.doc->'name') ELSE '{}'::jsonb END`,
    'a top-level field, only when present'
  )
})

t.test('limits and bad input', async t => {
  const many = Array.from({ length: MAX_PROJECTION_FIELDS + 1 }, (_, i) => `f${i}`)
  t.throws(() => project(many), { code: 'QUERY_TOO_COMPLEX' }, `more than ${MAX_PROJECTION_FIELDS} fields`)
  t.doesNotThrow(() => project(many.slice(1)), `${MAX_PROJECTION_FIELDS} fields`)
  t.throws(() => project(["a'b"]), { code: 'INVALID_FIELD' }, 'bad field name')
  t.throws(() => project(['a;drop']), { code: 'INVALID_FIELD' }, 'injection attempt')
})
