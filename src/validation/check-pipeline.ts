// The engine-neutral check of an aggregation pipeline, before any engine sees it:
// supported stages only (no writes), the stage, nesting and $facet limits, every
// $match filter and expression checked, every path free of hidden (password) fields,
// and every model a $lookup reads reported to the caller's permission check.
// Returns the pipeline with extended JSON revived and its filters normalized.
import { QuireError } from '../errors.ts'
import { reviveExtendedJson } from '../query/extended-json.ts'
import { checkFilter } from './check-query.ts'
import { checkExpression, checkPipelinePath, type ExpressionScope } from './check-expression.ts'
import { checkFieldName } from './field-path.ts'
import { LIMITS } from './limits.ts'
import { ACCUMULATORS, type STAGES, VARIABLE_NAME, WRITE_STAGES } from './pipeline-operators.ts'
import { isPlainObject } from './values.ts'

export interface PipelineRules {
  /** Field names no stage may name anywhere: the password fields of every model. */
  hidden: ReadonlySet<string>
  /** Called for every model a $lookup reads; throws MODEL_NOT_FOUND (404) or FORBIDDEN (403). */
  lookup: (modelName: string) => void
}

interface Walk extends ExpressionScope {
  rules: PipelineRules
  /** $lookup/$facet nesting of the pipeline being checked. */
  depth: number
  inFacet: boolean
  /** Shared by the whole request: stages and expression terms checked so far. */
  counter: { stages: number; terms: number }
}

type StageCheck = (spec: unknown, walk: Walk) => unknown

function invalid(message: string): QuireError {
  return new QuireError('INVALID_QUERY', message)
}

function objectSpec(stage: string, spec: unknown): Record<string, unknown> {
  if (!isPlainObject(spec)) throw invalid(`${stage} needs an object`)
  return spec
}

function count(stage: string, value: unknown, min: number): number {
  if (!Number.isSafeInteger(value) || (value as number) < min)
    throw invalid(`${stage} needs an integer of at least ${min}`)
  return value as number
}

/** $project / $addFields / $set: keys are paths (nested objects are sub-specs), values expressions or 0/1. */
function checkShapeSpec(spec: unknown, walk: Walk, stage: string, depth = 0): unknown {
  if (depth > LIMITS.expressionDepth) throw new QuireError('QUERY_TOO_COMPLEX', `${stage} nests too deep`)
  for (const [key, value] of Object.entries(objectSpec(stage, spec))) {
    checkPipelinePath(key, walk.hidden)
    const nested =
      isPlainObject(value) && Object.keys(value).length > 0 && !Object.keys(value).some(k => k.startsWith('$'))
    if (nested) checkShapeSpec(value, walk, stage, depth + 1)
    else checkExpression(value, walk)
  }
  return spec
}

function checkMatch(spec: unknown, walk: Walk): unknown {
  const { $expr, ...rest } = objectSpec('$match', spec)
  const filter = checkFilter(rest, [...walk.hidden], true)
  if (!('$expr' in (spec as object))) return filter
  checkExpression($expr, walk)
  return { ...filter, $expr }
}

function checkSort(spec: unknown, walk: Walk): unknown {
  const entries = Object.entries(objectSpec('$sort', spec))
  if (entries.length === 0 || !entries.every(([, dir]) => dir === 1 || dir === -1))
    throw invalid('$sort needs {field: 1 | -1, ...}')
  if (entries.length > LIMITS.sortTerms)
    throw new QuireError('QUERY_TOO_COMPLEX', `$sort may have at most ${LIMITS.sortTerms} fields`)
  for (const [path] of entries) checkPipelinePath(path, walk.hidden)
  return spec
}

function checkUnwind(spec: unknown, walk: Walk): unknown {
  const options = typeof spec === 'string' ? { path: spec } : objectSpec('$unwind', spec)
  const { path, includeArrayIndex, preserveNullAndEmptyArrays, ...extra } = options as Record<string, unknown>
  if (
    typeof path !== 'string' ||
    !path.startsWith('$') ||
    Object.keys(extra).length > 0 ||
    !['undefined', 'string'].includes(typeof includeArrayIndex) ||
    !['undefined', 'boolean'].includes(typeof preserveNullAndEmptyArrays)
  ) {
    throw invalid('$unwind needs "$path" or {path: "$path", includeArrayIndex?, preserveNullAndEmptyArrays?}')
  }
  checkPipelinePath(path.slice(1), walk.hidden)
  if (typeof includeArrayIndex === 'string') checkPipelinePath(includeArrayIndex, walk.hidden)
  return spec
}

function checkGroup(spec: unknown, walk: Walk): unknown {
  const group = objectSpec('$group', spec)
  if (!('_id' in group)) throw invalid('$group needs an object with an _id')
  for (const [name, value] of Object.entries(group)) {
    if (name === '_id') {
      checkExpression(value, walk)
      continue
    }
    checkPipelinePath(checkFieldName(name), walk.hidden)
    const entries = isPlainObject(value) ? Object.entries(value) : []
    if (entries.length !== 1 || !entries[0][0].startsWith('$'))
      throw invalid(`$group field ${name} needs one accumulator, e.g. {"$sum": "$field"}`)
    const [op, arg] = entries[0]
    if (!(ACCUMULATORS as readonly string[]).includes(op))
      throw new QuireError('UNSUPPORTED_OPERATOR', `Unsupported accumulator operator: ${op.slice(0, 64)}`)
    checkExpression(arg, walk)
  }
  return spec
}

function checkLookup(spec: unknown, walk: Walk): unknown {
  const lookup = objectSpec('$lookup', spec)
  const allowed = ['from', 'as', 'localField', 'foreignField', 'let', 'pipeline']
  if (
    typeof lookup.from !== 'string' ||
    typeof lookup.as !== 'string' ||
    Object.keys(lookup).some(k => !allowed.includes(k))
  ) {
    throw invalid('$lookup needs {from, localField, foreignField, as} or {from, let?, pipeline, as}')
  }
  walk.rules.lookup(lookup.from)
  checkPipelinePath(lookup.as, walk.hidden)
  for (const key of ['localField', 'foreignField'] as const) {
    if (lookup[key] !== undefined) checkPipelinePath(String(lookup[key]), walk.hidden)
  }
  const vars = new Set(walk.vars)
  for (const [name, expr] of Object.entries(isPlainObject(lookup.let) ? lookup.let : {})) {
    if (!VARIABLE_NAME.test(name)) throw invalid(`Invalid variable name: ${name.slice(0, 64)}`)
    checkExpression(expr, walk)
    vars.add(name)
  }
  if (lookup.pipeline === undefined) {
    nested(walk, '$lookup')
    return lookup
  }
  return { ...lookup, pipeline: checkStages(lookup.pipeline, { ...nested(walk, '$lookup'), vars }) }
}

function checkFacet(spec: unknown, walk: Walk): unknown {
  const entries = Object.entries(objectSpec('$facet', spec))
  if (entries.length === 0) throw invalid('$facet needs {name: [stages], ...}')
  if (entries.length > LIMITS.facetPipelines)
    throw new QuireError('QUERY_TOO_COMPLEX', `$facet may have at most ${LIMITS.facetPipelines} sub-pipelines`)
  const inner = { ...nested(walk, '$facet'), inFacet: true }
  return Object.fromEntries(
    entries.map(([name, pipeline]) => [
      checkPipelinePath(checkFieldName(name), walk.hidden),
      checkStages(pipeline, inner)
    ])
  )
}

function nested(walk: Walk, stage: string): Walk {
  if (walk.depth + 1 > LIMITS.pipelineNesting)
    throw new QuireError('QUERY_TOO_COMPLEX', `${stage} stages may nest at most ${LIMITS.pipelineNesting} levels deep`)
  return { ...walk, depth: walk.depth + 1 }
}

const CHECKS: Record<(typeof STAGES)[number], StageCheck> = {
  $match: checkMatch,
  $group: checkGroup,
  $sort: checkSort,
  $limit: spec => count('$limit', spec, 1),
  $skip: spec => count('$skip', spec, 0),
  $project: (spec, walk) => checkShapeSpec(spec, walk, '$project'),
  $addFields: (spec, walk) => checkShapeSpec(spec, walk, '$addFields'),
  $set: (spec, walk) => checkShapeSpec(spec, walk, '$set'),
  $unset: (spec, walk) => {
    const paths = Array.isArray(spec) ? spec : [spec]
    if (paths.length === 0 || !paths.every(p => typeof p === 'string'))
      throw invalid('$unset needs a field path or a non-empty list of field paths')
    for (const path of paths as string[]) checkPipelinePath(path, walk.hidden)
    return spec
  },
  $unwind: checkUnwind,
  $count: (spec, walk) => {
    if (typeof spec !== 'string' || spec.length === 0) throw invalid('$count needs a field name')
    return checkPipelinePath(checkFieldName(spec), walk.hidden)
  },
  $lookup: checkLookup,
  $replaceRoot: (spec, walk) => {
    const root = objectSpec('$replaceRoot', spec)
    if (!('newRoot' in root) || Object.keys(root).length !== 1)
      throw invalid('$replaceRoot needs {newRoot: <expression>}')
    checkExpression(root.newRoot, walk)
    return spec
  },
  $replaceWith: (spec, walk) => {
    checkExpression(spec, walk)
    return spec
  },
  $facet: checkFacet,
  $sortByCount: (spec, walk) => {
    checkExpression(spec, walk)
    return spec
  },
  $sample: spec => {
    count('$sample size', isPlainObject(spec) ? spec.size : undefined, 1)
    return spec
  }
}

function checkStage(stage: unknown, walk: Walk): unknown {
  const keys = isPlainObject(stage) ? Object.keys(stage) : []
  if (keys.length !== 1 || !keys[0].startsWith('$'))
    throw invalid('Each pipeline stage must be an object with exactly one $-prefixed field')
  const name = keys[0]
  if (++walk.counter.stages > LIMITS.pipelineStages) {
    throw new QuireError(
      'QUERY_TOO_COMPLEX',
      `A pipeline may have at most ${LIMITS.pipelineStages} stages (nested ones included)`
    )
  }
  if (walk.inFacet && (name === '$facet' || (WRITE_STAGES as readonly string[]).includes(name)))
    throw invalid(`${name} is not allowed inside $facet`)
  if ((WRITE_STAGES as readonly string[]).includes(name))
    throw new QuireError('UNSUPPORTED_STAGE', `${name} is not supported: a pipeline cannot write`)
  if (!Object.hasOwn(CHECKS, name))
    throw new QuireError('UNSUPPORTED_STAGE', `Unsupported aggregation stage: ${name.slice(0, 64)}`)
  return { [name]: CHECKS[name as keyof typeof CHECKS]((stage as Record<string, unknown>)[name], walk) }
}

function checkStages(stages: unknown, walk: Walk): unknown[] {
  if (!Array.isArray(stages)) throw invalid('A pipeline must be an array of stages')
  return stages.map(stage => checkStage(stage, walk))
}

/** The checked pipeline, ready for any engine; throws a 400/403/404 QuireError naming the first problem. */
export function checkPipeline(pipeline: unknown, rules: PipelineRules): unknown[] {
  const walk: Walk = {
    rules,
    hidden: rules.hidden,
    vars: new Set(),
    depth: 0,
    inFacet: false,
    counter: { stages: 0, terms: 0 }
  }
  return checkStages(reviveExtendedJson(pipeline), walk)
}
