// Compiles a MongoDB aggregation pipeline into ONE PostgreSQL statement (no I/O): each
// stage wraps the previous one as a subquery; rows are single jsonb `doc` columns.
import { QuireError } from '../errors.ts'
import { reviveExtendedJson } from '../query/extended-json.ts'
import { quoteLiteral } from './quote.ts'
import type { Filter } from '../query/types.ts'
import { isPlainObject } from '../validation/values.ts'
import { SqlParams, type SqlValue } from './sql-params.ts'
import { freshName, type CompileState, type PipelineContext, type Rel } from './pipeline-state.ts'
import { compileCount, compileGroup } from './compile-group.ts'
import { compileFacet, compileLookup } from './compile-lookup.ts'
import {
  compileAddFieldsStage, compileLimit, compileMatch, compileMatchCondition, compileProjectStage, compileReplaceRoot,
  compileSample, compileSkip, compileSort, compileUnsetStage, compileUnwind
} from './compile-stages.ts'

export type { PipelineContext } from './pipeline-state.ts'
export { MAX_FACET_PIPELINES, MAX_PIPELINE_NESTING } from './compile-lookup.ts'
export { MAX_EXPRESSION_DEPTH } from './compile-expression.ts'

/** Most stages in one request, counting the stages of nested $lookup and $facet pipelines. */
export const MAX_PIPELINE_STAGES = 50

type StageCompiler = (spec: unknown, rel: Rel, st: CompileState) => Rel

function refuseWrite (name: string): StageCompiler {
  return (_spec, _rel, st) => {
    if (st.ctx.allowWrites !== true) throw new QuireError('FORBIDDEN', `${name} is not allowed here`)
    throw new QuireError('UNSUPPORTED_STAGE', `Unsupported aggregation stage: ${name} (writes from a pipeline are not supported)`)
  }
}

const STAGES: Record<string, StageCompiler> = {
  $match: compileMatch,
  $group: compileGroup,
  $sort: compileSort,
  $limit: compileLimit,
  $skip: compileSkip,
  $project: compileProjectStage,
  $addFields: compileAddFieldsStage,
  $set: compileAddFieldsStage,
  $unset: compileUnsetStage,
  $unwind: compileUnwind,
  $count: compileCount,
  $lookup: compileLookup,
  $replaceRoot: (spec, rel, st) => {
    if (!isPlainObject(spec) || !('newRoot' in spec) || Object.keys(spec).length !== 1) {
      throw new QuireError('INVALID_QUERY', '$replaceRoot needs {newRoot: <expression>}')
    }
    return compileReplaceRoot(spec.newRoot, rel, st)
  },
  $replaceWith: compileReplaceRoot,
  $facet: compileFacet,
  $sortByCount: (spec, rel, st) => compileSort({ count: -1 }, compileGroup({ _id: spec, count: { $sum: 1 } }, rel, st), { ...st, kindOf: undefined }),
  $sample: compileSample,
  $out: refuseWrite('$out'),
  $merge: refuseWrite('$merge')
}

/** Stages after which documents still have the stored shape (so declared field kinds apply). */
const SHAPE_KEEPING = new Set(['$match', '$sort', '$limit', '$skip', '$sample'])

function stageOf (stage: unknown): [name: string, spec: unknown] {
  const keys = isPlainObject(stage) ? Object.keys(stage) : []
  if (keys.length !== 1 || !keys[0].startsWith('$')) {
    throw new QuireError('INVALID_QUERY', 'Each pipeline stage must be an object with exactly one $-prefixed field')
  }
  return [keys[0], (stage as Record<string, unknown>)[keys[0]]]
}

/**
 * How many stages at the start are plain `$match` filters: they are compiled against the stored
 * rows themselves, so that the model's indexes serve them and hidden fields are not yet removed.
 */
function countLeadingMatches (stages: unknown[]): number {
  let n = 0
  while (n < stages.length && n < MAX_PIPELINE_STAGES && isPlainObject(stages[n]) && Object.keys(stages[n] as object).length === 1 &&
    isPlainObject((stages[n] as { $match?: unknown }).$match)) n++
  return n
}

function compileStages (stages: unknown[], rel: Rel, st: CompileState): Rel {
  if (!Array.isArray(stages)) throw new QuireError('INVALID_QUERY', 'A pipeline must be an array of stages')
  let current = rel
  let kindOf = st.kindOf
  for (const stage of stages) {
    st.counters.stages += 1
    if (st.counters.stages > MAX_PIPELINE_STAGES) {
      throw new QuireError('QUERY_TOO_COMPLEX', `A pipeline may have at most ${MAX_PIPELINE_STAGES} stages (nested ones included)`)
    }
    const [name, spec] = stageOf(stage)
    const compile = Object.hasOwn(STAGES, name) ? STAGES[name] : undefined
    if (compile === undefined) throw new QuireError('UNSUPPORTED_STAGE', `Unsupported aggregation stage: ${name.slice(0, 64)}`)
    current = compile(spec, current, { ...st, kindOf })
    if (!SHAPE_KEEPING.has(name)) kindOf = undefined
  }
  return current
}

/**
 * The statement for `pipeline` (extended JSON revived first). It returns one row per
 * output document, with one jsonb column `doc`, in the pipeline's order when it sorts.
 */
export function compilePipeline (pipeline: unknown[], ctx: PipelineContext): { text: string, values: SqlValue[] } {
  if (!Array.isArray(pipeline)) throw new QuireError('INVALID_QUERY', 'A pipeline must be an array of stages')
  const st: CompileState = {
    params: new SqlParams(), ctx, counters: { names: 0, stages: 0 }, vars: new Map(), depth: 0, kindOf: ctx.kindOf, compileStages
  }
  const t = freshName(st, 't')
  const stages = reviveExtendedJson(pipeline) as unknown[]
  const leading = countLeadingMatches(stages)
  const filters = [ctx.baseFilter ?? {}, ...stages.slice(0, leading).map(stage => (stage as { $match: Filter }).$match)]
    .filter(f => Object.keys(f).length > 0)
  st.counters.stages += leading
  const where = filters.length === 0 ? '' : ` WHERE ${filters.map(f => compileMatchCondition(f, { st, doc: `${t}.doc` })).join(' AND ')}`
  const hidden = ctx.hiddenFields ?? []
  const doc = hidden.length === 0 ? `${t}.doc` : `${t}.doc - ARRAY[${hidden.map(quoteLiteral).join(', ')}]::text[] AS doc`
  const rel = compileStages(stages.slice(leading), { sql: `SELECT ${doc} FROM ${ctx.table(ctx.source)} ${t}${where}`, ordered: false }, st)
  if (!rel.ordered) return { text: rel.sql, values: st.params.values }
  const o = freshName(st, 'o')
  return { text: `SELECT ${o}.doc FROM (${rel.sql}) ${o} ORDER BY ${o}.ord`, values: st.params.values }
}
