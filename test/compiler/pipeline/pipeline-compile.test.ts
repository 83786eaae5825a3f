// Table-driven unit tests of the aggregation front end: exact SQL and parameters of
// representative stages (checked, then compiled), and the errors of both steps
// (unsupported stages and operators, bounds, writes, translation limits).
import t from 'tap'
import { QuireError, type ErrorCode } from '../../../src/errors.ts'
import {
  compilePipeline as compileChecked,
  type PipelineContext
} from '../../../src/compiler/pipeline/compile-pipeline.ts'
import { checkPipeline } from '../../../src/validation/check-pipeline.ts'
import { LIMITS } from '../../../src/validation/limits.ts'
import { quoteIdent } from '../../../src/compiler/sql-text.ts'

const ctx: PipelineContext = {
  sourceTable: quoteIdent('q_items'),
  baseFilter: {},
  hiddenFields: [],
  lookup: model => ({ table: quoteIdent(`q_${model}`), filter: {} })
}
const rules = {
  hidden: new Set<string>(),
  lookup: (model: string): void => {
    if (model === 'secret') throw new QuireError('FORBIDDEN')
    if (!['items', 'owners'].includes(model)) throw new QuireError('MODEL_NOT_FOUND', `Unknown model: ${model}`)
  }
}
/** What an engine receives: the pipeline checked, then compiled. */
const compilePipeline = (pipeline: unknown[], context: PipelineContext): ReturnType<typeof compileChecked> =>
  compileChecked(checkPipeline(pipeline, rules), context)
const MAX_PIPELINE_STAGES = LIMITS.pipelineStages
const MAX_PIPELINE_NESTING = LIMITS.pipelineNesting
const MAX_FACET_PIPELINES = LIMITS.facetPipelines
const MAX_EXPRESSION_DEPTH = LIMITS.expressionDepth
const MAX_EXPRESSION_TERMS = LIMITS.expressionTerms
const BASE = 'SELECT t1.doc FROM "q_items" t1'

t.test('compiled SQL and parameters', async t => {
  const cases: Array<{ name: string; pipeline: unknown[]; text: string; values: unknown[] }> = [
    { name: 'empty pipeline reads the collection', pipeline: [], text: BASE, values: [] },
    {
      name: '$limit binds its count',
      pipeline: [{ $limit: 5 }],
      text: `SELECT s2.doc FROM (${BASE}) s2 LIMIT $1::bigint`,
      values: [5]
    },
    {
      name: '$skip then $count (no document on no input)',
      pipeline: [{ $skip: 2 }, { $count: 'n' }],
      text:
        `SELECT jsonb_build_object('n', to_jsonb(count(*))) AS doc FROM (SELECT s2.doc FROM (${BASE}) s2 ` +
        `OFFSET $1::bigint) s3 HAVING count(*) > 0`,
      values: [2]
    },
    {
      name: '$unset removes keys',
      pipeline: [{ $unset: ['b', 'c'] }],
      text: `SELECT (s2.doc - ARRAY['b', 'c']::text[]) AS doc FROM (${BASE}) s2 OFFSET 0`,
      values: []
    },
    {
      name: '$group: missing keys group with null, $sum over numbers only',
      pipeline: [{ $group: { _id: '$cat', n: { $sum: 1 } } }],
      text:
        "SELECT jsonb_build_object('_id', g3.k, 'n', to_jsonb(COALESCE(sum(CASE WHEN jsonb_typeof(g3.a1) " +
        "= 'number' THEN (g3.a1)::float8 END), 0::float8))) AS doc " +
        `FROM (SELECT COALESCE(s2.doc->'cat', 'null'::jsonb) AS k, $1::text::jsonb AS a1 FROM (${BASE}) ` +
        `s2 OFFSET 0) g3 GROUP BY g3.k`,
      values: ['1']
    },
    {
      name:
        'a leading $match with $expr runs after hidden fields are removed, not on the stored rows ($expr ' +
        'against a literal number)',
      pipeline: [{ $match: { $expr: { $gt: ['$a', 1] } } }],
      text:
        `SELECT s2.doc FROM (${BASE}) s2 WHERE (CASE WHEN jsonb_typeof(s2.doc->'a') = 'number' THEN ` +
        `sign((s2.doc->'a')::numeric - $1::numeric)::int ` +
        "ELSE sign(COALESCE(CASE jsonb_typeof(s2.doc->'a') WHEN 'null' THEN 1 WHEN 'number' THEN 2 WHEN " +
        "'string' THEN 3 WHEN 'object' THEN 4 " +
        "WHEN 'array' THEN 5 WHEN 'boolean' THEN 6 END, 0) - 2)::int END > 0)",
      values: [1]
    },
    {
      name: '$replaceWith keeps object roots only',
      pipeline: [{ $replaceWith: '$sub' }],
      text:
        `SELECT r3.doc FROM (SELECT s2.doc->'sub' AS doc FROM (${BASE}) s2 OFFSET 0) r3 WHERE ` +
        `jsonb_typeof(r3.doc) = 'object'`,
      values: []
    },
    {
      name: '$sample',
      pipeline: [{ $sample: { size: 2 } }],
      text: `SELECT s2.doc FROM (${BASE}) s2 ORDER BY random() LIMIT $1::bigint`,
      values: [2]
    },
    {
      name: 'extended JSON is revived before compiling',
      pipeline: [
        { $project: { _id: 0, d: { $literal: { $date: 0 } }, o: { $literal: { $oid: '65A1B2C3D4E5F60718293A4B' } } } }
      ],
      text:
        "(jsonb_build_object('d', $1::text::jsonb, 'o', $2::text::jsonb) - array_remove(ARRAY[CASE WHEN " +
        "$1::text::jsonb IS NULL THEN 'd' END, " +
        `CASE WHEN $2::text::jsonb IS NULL THEN 'o' END]::text[], NULL))`,
      values: ['"1970-01-01T00:00:00.000Z"', '"65a1b2c3d4e5f60718293a4b"']
    }
  ]
  for (const c of cases) {
    const compiled = compilePipeline(c.pipeline, ctx)
    if (c.name.startsWith('extended JSON')) t.ok(compiled.text.includes(c.text), c.name)
    else t.equal(compiled.text, c.text, c.name)
    t.same(compiled.values, c.values, `${c.name}: values`)
  }
})

t.test('a sorted pipeline ends with ORDER BY the sort position', async t => {
  const { text, values } = compilePipeline([{ $sort: { a: -1 } }, { $limit: 3 }], ctx)
  t.match(
    text,
    new RegExp(
      String.raw`^SELECT o\d+\.doc FROM \(.*row_number\(\) OVER \(ORDER BY .*\) AS ord ` +
        String.raw`.*ORDER BY s\d+\.ord LIMIT \$1::bigint\) o\d+ ORDER BY o\d+\.ord$`
    )
  )
  t.same(values, [3])
})

t.test('the base filter and $lookup filters are compiled in', async t => {
  const withFilters: PipelineContext = {
    ...ctx,
    baseFilter: { _deleted: false },
    lookup: model => ({ table: quoteIdent(`q_${model}`), filter: { _deleted: false } })
  }
  const { text } = compilePipeline(
    [{ $lookup: { from: 'owners', localField: 'owner', foreignField: '_id', as: 'o' } }],
    withFilters
  )
  t.match(text, /FROM "q_items" t1 WHERE /)
  t.match(
    text,
    /FROM "q_owners" f\d+ WHERE f\d+\._id = ANY \(lv\d+\.keys\) AND /,
    'the foreign _id join uses the primary key'
  )
})

t.test('field paths through declared objects use plain ->, others stay array-aware', async t => {
  const hinted: PipelineContext = {
    ...ctx,
    kindOf: path => (path === 'meta' ? 'object' : path === 'tags' ? 'array' : undefined)
  }
  const group = (key: string): string => compilePipeline([{ $group: { _id: key } }], hinted).text
  t.match(
    group('$meta.a'),
    /COALESCE\(s2\.doc->'meta'->'a', 'null'::jsonb\) AS k/,
    'a declared object is never an array'
  )
  t.match(group('$tags.a'), /jsonb_array_elements/, 'an array field maps over its elements')
  t.match(group('$other.a'), /jsonb_array_elements/, 'an undeclared field may hold an array')
  const afterProject = compilePipeline([{ $project: { meta: 1 } }, { $group: { _id: '$meta.a' } }], hinted).text
  t.match(afterProject, /jsonb_array_elements/, 'after a reshaping stage the declared kinds no longer apply')
})

/** A $facet holding $lookup pipelines nested `depth` levels deep in all. */
const nest = (depth: number): unknown[] => [{ $facet: { a: lookups(depth - 1) } }]
const lookups = (depth: number): unknown[] =>
  depth === 0 ? [] : [{ $lookup: { from: 'owners', pipeline: lookups(depth - 1), as: 'x' } }]
const deepExpression = (depth: number): unknown => (depth === 0 ? '$a' : { $abs: deepExpression(depth - 1) })
/** An $add of `terms` terms in all: the operator object, its argument list and `terms - 2` numbers. */
const wideExpression = (terms: number): unknown => ({ $add: Array.from({ length: terms - 2 }, () => 1) })
/** A $sort on `keys` fields. */
const sortOn = (keys: number): unknown => ({
  $sort: Object.fromEntries(Array.from({ length: keys }, (_, i) => [`f${i}`, 1]))
})

t.test('errors', async t => {
  const cases: Array<{ name: string; pipeline: unknown; code: ErrorCode; message?: RegExp }> = [
    {
      name: 'unknown stage',
      pipeline: [{ $geoNear: {} }],
      code: 'UNSUPPORTED_STAGE',
      message: /^Unsupported aggregation stage: \$geoNear$/
    },
    {
      name: 'unknown expression operator',
      pipeline: [{ $project: { x: { $sqrt: 4 } } }],
      code: 'UNSUPPORTED_OPERATOR',
      message: /^Unsupported expression operator: \$sqrt$/
    },
    {
      name: 'unknown accumulator',
      pipeline: [{ $group: { _id: null, x: { $stdDevPop: '$a' } } }],
      code: 'UNSUPPORTED_OPERATOR'
    },
    {
      name: 'unsupported date format',
      pipeline: [{ $project: { x: { $dateToString: { date: '$d', format: '%j' } } } }],
      code: 'UNSUPPORTED_OPERATOR'
    },
    {
      name: 'non-UTC timezone',
      pipeline: [{ $project: { x: { $year: { date: '$d', timezone: 'Europe/Paris' } } } }],
      code: 'UNSUPPORTED_OPERATOR'
    },
    { name: '$out refused', pipeline: [{ $out: 'copy' }], code: 'UNSUPPORTED_STAGE' },
    { name: '$merge refused', pipeline: [{ $merge: { into: 'copy' } }], code: 'UNSUPPORTED_STAGE' },
    { name: 'a stage named like an Object method', pipeline: [{ constructor: {} }], code: 'INVALID_QUERY' },
    { name: '$toString is not a stage', pipeline: [{ $toString: {} }], code: 'UNSUPPORTED_STAGE' },
    {
      name: 'too many stages',
      pipeline: Array.from({ length: MAX_PIPELINE_STAGES + 1 }, () => ({ $skip: 0 })),
      code: 'QUERY_TOO_COMPLEX'
    },
    {
      name: 'nested stages count',
      pipeline: [{ $facet: { a: Array.from({ length: MAX_PIPELINE_STAGES }, () => ({ $skip: 0 })) } }],
      code: 'QUERY_TOO_COMPLEX'
    },
    {
      name: 'too many facets',
      pipeline: [
        { $facet: Object.fromEntries(Array.from({ length: MAX_FACET_PIPELINES + 1 }, (_, i) => [`f${i}`, []])) }
      ],
      code: 'QUERY_TOO_COMPLEX'
    },
    { name: 'nesting too deep', pipeline: nest(MAX_PIPELINE_NESTING + 1), code: 'QUERY_TOO_COMPLEX' },
    {
      name: 'expression too deep',
      pipeline: [{ $project: { x: deepExpression(MAX_EXPRESSION_DEPTH + 1) } }],
      code: 'QUERY_TOO_COMPLEX'
    },
    {
      name: 'expression too wide',
      pipeline: [{ $project: { x: wideExpression(MAX_EXPRESSION_TERMS + 1) } }],
      code: 'QUERY_TOO_COMPLEX',
      message: /at most 1000 terms/
    },
    {
      name: 'terms count over the whole pipeline',
      pipeline: [{ $project: { x: wideExpression(600) } }, { $addFields: { y: wideExpression(600) } }],
      code: 'QUERY_TOO_COMPLEX'
    },
    {
      name: 'a $group _id of many fields',
      pipeline: [
        { $group: { _id: Object.fromEntries(Array.from({ length: MAX_EXPRESSION_TERMS }, (_, i) => [`f${i}`, '$a'])) } }
      ],
      code: 'QUERY_TOO_COMPLEX'
    },
    {
      name: 'a long $dateToString format',
      pipeline: [{ $project: { x: { $dateToString: { date: '$d', format: '%Y'.repeat(MAX_EXPRESSION_TERMS / 2) } } } }],
      code: 'QUERY_TOO_COMPLEX'
    },
    { name: '$sort on too many fields', pipeline: [sortOn(LIMITS.sortTerms + 1)], code: 'QUERY_TOO_COMPLEX' },
    { name: 'pipeline not an array', pipeline: { $match: {} }, code: 'INVALID_QUERY' },
    { name: 'stage with two operators', pipeline: [{ $match: {}, $limit: 1 }], code: 'INVALID_QUERY' },
    { name: '$limit 0', pipeline: [{ $limit: 0 }], code: 'INVALID_QUERY' },
    { name: '$sort direction', pipeline: [{ $sort: { a: 2 } }], code: 'INVALID_QUERY' },
    {
      name: '$project mixing inclusion and exclusion',
      pipeline: [{ $project: { a: 1, b: 0 } }],
      code: 'INVALID_QUERY'
    },
    { name: 'empty $project', pipeline: [{ $project: {} }], code: 'INVALID_QUERY' },
    { name: 'path collision', pipeline: [{ $project: { a: 1, 'a.b': 1 } }], code: 'INVALID_QUERY' },
    { name: 'invalid field path', pipeline: [{ $project: { x: '$a.$b' } }], code: 'INVALID_FIELD' },
    { name: 'undefined variable', pipeline: [{ $project: { x: '$$nope' } }], code: 'INVALID_QUERY' },
    {
      name: 'operator object with two keys',
      pipeline: [{ $project: { x: { $add: [1], y: 1 } } }],
      code: 'INVALID_QUERY'
    },
    {
      name: '$round needs a literal place count',
      pipeline: [{ $project: { x: { $round: ['$a', '$b'] } } }],
      code: 'INVALID_QUERY'
    },
    { name: '$group without _id', pipeline: [{ $group: { n: { $sum: 1 } } }], code: 'INVALID_QUERY' },
    { name: '$facet inside $facet', pipeline: [{ $facet: { a: [{ $facet: { b: [] } }] } }], code: 'INVALID_QUERY' },
    { name: '$out inside $facet', pipeline: [{ $facet: { a: [{ $out: 'x' }] } }], code: 'INVALID_QUERY' },
    {
      name: '$lookup without as',
      pipeline: [{ $lookup: { from: 'owners', localField: 'a', foreignField: 'b' } }],
      code: 'INVALID_QUERY'
    },
    {
      name: '$lookup of an unknown model',
      pipeline: [{ $lookup: { from: 'nope', localField: 'a', foreignField: 'b', as: 'x' } }],
      code: 'MODEL_NOT_FOUND'
    },
    {
      name: '$lookup of an unreadable model',
      pipeline: [{ $lookup: { from: 'secret', localField: 'a', foreignField: 'b', as: 'x' } }],
      code: 'FORBIDDEN'
    },
    { name: 'invalid extended JSON date', pipeline: [{ $match: { d: { $date: 'yesterday' } } }], code: 'INVALID_BODY' }
  ]
  for (const c of cases) {
    t.throws(
      () => compilePipeline(c.pipeline as unknown[], ctx),
      { code: c.code, ...(c.message ? { message: c.message } : {}) },
      c.name
    )
  }
})

t.test('bounds are inclusive', async t => {
  t.doesNotThrow(() =>
    compilePipeline(
      Array.from({ length: MAX_PIPELINE_STAGES }, () => ({ $skip: 0 })),
      ctx
    )
  )
  t.doesNotThrow(() => compilePipeline(nest(MAX_PIPELINE_NESTING), ctx))
  t.doesNotThrow(() =>
    compilePipeline(
      [{ $facet: Object.fromEntries(Array.from({ length: MAX_FACET_PIPELINES }, (_, i) => [`f${i}`, []])) }],
      ctx
    )
  )
  t.doesNotThrow(() => compilePipeline([{ $project: { x: deepExpression(MAX_EXPRESSION_DEPTH - 1) } }], ctx))
  t.doesNotThrow(() => compilePipeline([{ $project: { x: wideExpression(MAX_EXPRESSION_TERMS) } }], ctx))
  t.doesNotThrow(() => compilePipeline([sortOn(LIMITS.sortTerms)], ctx))
})
