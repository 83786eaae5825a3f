// Compiles a checked aggregation pipeline (src/validation/check-pipeline.ts has
// validated its stages, limits and paths) into ONE PostgreSQL statement (no I/O):
// each stage wraps the previous one as a subquery; rows are single jsonb `doc` columns.
import type { Filter } from '../../query/types.ts'
import type { StageName } from '../../validation/pipeline-operators.ts'
import { isPlainObject } from '../../validation/values.ts'
import { withoutKeys } from '../find/compile-projection.ts'
import { SqlParams, type SqlValue } from '../sql-text.ts'
import { freshName, type CompileState, type PipelineContext, type Rel } from './pipeline-state.ts'
import { compileCount, compileGroup } from './compile-group.ts'
import { compileCoveredGroup, planCoveredGroup } from './compile-covered-group.ts'
import { readFromColumns } from '../ddl/covering-columns.ts'
import { compileFacet, compileLookup } from './compile-lookup.ts'
import {
  compileAddFieldsStage,
  compileLimit,
  compileMatch,
  compileMatchCondition,
  compileProjectStage,
  compileReplaceRoot,
  compileSample,
  compileSkip,
  compileSort,
  compileUnsetStage,
  compileUnwind
} from './compile-stages.ts'

export type { PipelineContext } from './pipeline-state.ts'

type StageCompiler = (spec: unknown, rel: Rel, st: CompileState) => Rel

const STAGES: Record<StageName, StageCompiler> = {
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
  $replaceRoot: (spec, rel, st) => compileReplaceRoot((spec as { newRoot: unknown }).newRoot, rel, st),
  $replaceWith: compileReplaceRoot,
  $facet: compileFacet,
  $sortByCount: (spec, rel, st) =>
    compileSort({ count: -1 }, compileGroup({ _id: spec, count: { $sum: 1 } }, rel, st), { ...st, kindOf: undefined }),
  $sample: compileSample
}

/** Stages after which documents still have the stored shape (so declared field kinds apply). */
const SHAPE_KEEPING = new Set(['$match', '$sort', '$limit', '$skip', '$sample'])

function stageOf(stage: unknown): [name: StageName, spec: unknown] {
  const [name, spec] = Object.entries(stage as Record<string, unknown>)[0]
  return [name as StageName, spec]
}

/**
 * How many stages at the start are plain `$match` filters: they are compiled against the stored
 * rows themselves, so that the model's indexes serve them. A $match with $expr is not one of them:
 * an expression could reach the whole stored document ($$ROOT), so it runs after hidden fields are
 * removed, like every other stage.
 */
function countLeadingMatches(stages: unknown[]): number {
  let n = 0
  while (
    n < stages.length &&
    isPlainObject((stages[n] as { $match?: unknown }).$match) &&
    !('$expr' in (stages[n] as { $match: object }).$match)
  )
    n++
  return n
}

function compileStages(stages: unknown[], rel: Rel, st: CompileState): Rel {
  let current = rel
  let kindOf = st.kindOf
  for (const stage of stages) {
    const [name, spec] = stageOf(stage)
    current = STAGES[name](spec, current, { ...st, kindOf })
    if (!SHAPE_KEEPING.has(name)) kindOf = undefined
  }
  return current
}

/**
 * The leading $group over the covering index's columns (src/compiler/pipeline/compile-covered-group.ts), or
 * undefined when the filters or the $group read anything its columns do not hold.
 */
function coveredGroupSource(
  stages: unknown[],
  leading: number,
  where: string,
  t: string,
  st: CompileState
): Rel | undefined {
  const fields = st.ctx.coveredFields
  const group = (stages[leading] as { $group?: unknown } | undefined)?.$group
  if (fields === undefined || fields.size === 0 || group === undefined) return undefined
  const plan = planCoveredGroup(group, fields)
  if (plan === undefined) return undefined
  const columnWhere = readFromColumns(where, `${t}.doc`, t, fields)
  return columnWhere === undefined
    ? undefined
    : compileCoveredGroup(plan, { table: st.ctx.sourceTable, alias: t, where: columnWhere }, st.params)
}

/** The pipeline's relation: rows with a jsonb column `doc` (and `ord` when `ordered`). */
function compileRelation(stages: unknown[], ctx: PipelineContext): { rel: Rel; st: CompileState } {
  const st: CompileState = {
    params: new SqlParams(),
    ctx,
    counters: { names: 0 },
    vars: new Map(),
    kindOf: ctx.kindOf,
    compileStages
  }
  const t = freshName(st, 't')
  const leading = countLeadingMatches(stages)
  const filters = [
    ctx.baseFilter,
    ...stages.slice(0, leading).map(stage => (stage as { $match: Filter }).$match)
  ].filter(f => Object.keys(f).length > 0)
  const where = filters.map(f => compileMatchCondition(f, { st, doc: `${t}.doc` })).join(' AND ')
  const covered = coveredGroupSource(stages, leading, where, t, st)
  const doc = ctx.hiddenFields.length === 0 ? `${t}.doc` : `${withoutKeys(`${t}.doc`, ctx.hiddenFields)} AS doc`
  const rel =
    covered !== undefined
      ? compileStages(stages.slice(leading + 1), covered, { ...st, kindOf: undefined })
      : compileStages(
          stages.slice(leading),
          { sql: `SELECT ${doc} FROM ${ctx.sourceTable} ${t}${where === '' ? '' : ` WHERE ${where}`}`, ordered: false },
          st
        )
  return { rel, st }
}

/**
 * The statement for a checked pipeline. It returns one row per output document, with one
 * jsonb column `doc`, in the pipeline's order when it sorts.
 */
export function compilePipeline(stages: unknown[], ctx: PipelineContext): { text: string; values: SqlValue[] } {
  const { rel, st } = compileRelation(stages, ctx)
  if (!rel.ordered) return { text: rel.sql, values: st.params.values }
  const o = freshName(st, 'o')
  return { text: `SELECT ${o}.doc FROM (${rel.sql}) ${o} ORDER BY ${o}.ord`, values: st.params.values }
}

/**
 * The statement for a checked pipeline whose result the database bounds: one row per output
 * document, in order, with `d` (the document as JSON text), up to the first row that takes the
 * result past `maxBytes`. Whatever lies beyond is never sent; the caller refuses a result past the
 * bound (src/storage/aggregate-result.ts).
 */
export function compileBoundedPipeline(
  stages: unknown[],
  ctx: PipelineContext,
  maxBytes: number
): { text: string; values: SqlValue[] } {
  const { rel, st } = compileRelation(stages, ctx)
  const [r, s, b] = [freshName(st, 'r'), freshName(st, 's'), freshName(st, 'b')]
  const ord = (alias: string): string => (rel.ordered ? `, ${alias}.ord` : '')
  const sizes =
    `sum(octet_length(${s}.d)) OVER (${rel.ordered ? `ORDER BY ${s}.ord ` : ''}` + 'ROWS UNBOUNDED PRECEDING) AS upto'
  const text =
    `SELECT ${b}.d FROM (SELECT ${s}.d${ord(s)}, ${sizes} FROM (SELECT ${r}.doc::text AS d${ord(r)} FROM ` +
    `(${rel.sql}) ${r}) ${s}) ${b} ` +
    `WHERE ${b}.upto - octet_length(${b}.d) <= ${Math.floor(maxBytes)}${rel.ordered ? ` ORDER BY ${b}.ord` : ''}`
  return { text, values: st.params.values }
}
