// $lookup (localField/foreignField and let+pipeline) and $facet: nested pipelines
// compiled into correlated subqueries that aggregate their documents into arrays.
import { QuireError } from '../errors.ts'
import { compileFilter } from './compile-filter.ts'
import { parseFieldPath, quoteLiteral } from './quote.ts'
import { bindValues, jsonObject, resolveFieldPath } from './jsonb-sql.ts'
import { freshName, type CompileState, type Rel, type Scope } from './pipeline-state.ts'
import { checkFieldName, compileExpression } from './compile-expression.ts'
import { setFields } from './compile-reshape.ts'

/** Deepest nesting of $lookup and $facet stages. */
export const MAX_PIPELINE_NESTING = 3
/** Most sub-pipelines in one $facet. */
export const MAX_FACET_PIPELINES = 10

const VARIABLE_NAME = /^[a-z][A-Za-z0-9_]{0,63}$/
const LOOKUP_KEYS = new Set(['from', 'as', 'localField', 'foreignField', 'let', 'pipeline'])

interface LookupSpec { from: string, as: string, localField?: string, foreignField?: string, let?: Record<string, unknown>, pipeline?: unknown[] }

function nestedState (st: CompileState, stage: string, changes: Partial<CompileState> = {}): CompileState {
  if (st.depth + 1 > MAX_PIPELINE_NESTING) {
    throw new QuireError('QUERY_TOO_COMPLEX', `${stage} stages may nest at most ${MAX_PIPELINE_NESTING} levels deep`)
  }
  return { ...st, depth: st.depth + 1, ...changes }
}

/** The jsonb array of a relation's documents, in its order. */
function collectArray (rel: Rel, st: CompileState): string {
  const x = freshName(st, 'x')
  return `(SELECT COALESCE(jsonb_agg(${x}.doc${rel.ordered ? ` ORDER BY ${x}.ord` : ''}), '[]'::jsonb) FROM (${rel.sql}) ${x})`
}

function parseLookup (spec: unknown): LookupSpec {
  const s = spec as Record<string, unknown>
  const valid = s !== null && typeof s === 'object' && !Array.isArray(s) && typeof s.from === 'string' && typeof s.as === 'string' &&
    Object.keys(s).every(k => LOOKUP_KEYS.has(k)) &&
    (s.localField === undefined) === (s.foreignField === undefined) &&
    (s.localField === undefined || (typeof s.localField === 'string' && typeof s.foreignField === 'string')) &&
    (s.pipeline === undefined ? s.localField !== undefined && s.let === undefined : Array.isArray(s.pipeline)) &&
    (s.let === undefined || (s.let !== null && typeof s.let === 'object' && !Array.isArray(s.let)))
  if (!valid) {
    throw new QuireError('INVALID_QUERY', '$lookup needs {from, localField, foreignField, as} or {from, let?, pipeline, as}')
  }
  return s as unknown as LookupSpec
}

/**
 * MongoDB's lookup equality: an array local value matches through its elements, a null or
 * missing one matches null or missing foreign values, and foreign arrays match by element.
 */
function joinCondition (scope: Scope, foreign: string, localField: string, foreignField: string): string {
  const local = resolveFieldPath(scope, scope.doc, parseFieldPath(localField))
  const values = bindValues(scope, [local], ([v]) =>
    `CASE WHEN jsonb_typeof(${v}) = 'array' THEN ${v} ELSE jsonb_build_array(COALESCE(${v}, 'null'::jsonb)) END`)
  const l = freshName(scope.st, 'l')
  if (foreignField === '_id') {
    return `${foreign}._id = ANY (ARRAY(SELECT ${l}.v #>> '{}' FROM jsonb_array_elements(${values}) AS ${l}(v) ` +
      `WHERE jsonb_typeof(${l}.v) = 'string'))`
  }
  const segments = parseFieldPath(foreignField)
  const path = `lax $${segments.map(s => `."${s}"`).join('')}`
  const doc = `${foreign}.doc`
  return `EXISTS (SELECT 1 FROM jsonb_array_elements(${values}) AS ${l}(v) WHERE CASE jsonb_typeof(${l}.v) ` +
    `WHEN 'null' THEN jsonb_path_exists(${doc}, ${quoteLiteral(`${path} ? (@ == null)`)}) OR NOT jsonb_path_exists(${doc}, ${quoteLiteral(path)}) ` +
    `WHEN 'object' THEN ${doc} #> ARRAY[${segments.map(quoteLiteral).join(', ')}]::text[] = ${l}.v ` +
    `ELSE jsonb_path_exists(${doc}, ${quoteLiteral(`${path} ? (@ == $v)`)}, jsonb_build_object('v', ${l}.v)) END)`
}

export function compileLookup (spec: unknown, rel: Rel, st: CompileState): Rel {
  const lookup = parseLookup(spec)
  const table = st.ctx.table(lookup.from)
  const filter = st.ctx.lookupFilter?.(lookup.from) ?? {}
  const [s, f] = [freshName(st, 's'), freshName(st, 'f')]
  const scope = { st, doc: `${s}.doc` }
  const conditions: string[] = []
  if (Object.keys(filter).length > 0) conditions.push(compileFilter(filter, { params: st.params, doc: `${f}.doc` }))
  if (lookup.localField !== undefined) conditions.push(joinCondition(scope, f, lookup.localField, lookup.foreignField as string))
  const where = conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`
  let matches: Rel = { sql: `SELECT ${f}.doc FROM ${table} ${f}${where}`, ordered: false }
  const vars = new Map(st.vars)
  for (const [name, expr] of Object.entries(lookup.let ?? {})) {
    if (!VARIABLE_NAME.test(name)) throw new QuireError('INVALID_QUERY', `Invalid variable name: ${name.slice(0, 64)}`)
    vars.set(name, `(${compileExpression(expr, scope)})`)
  }
  const sub = nestedState(st, '$lookup', { vars, kindOf: undefined })
  if (lookup.pipeline !== undefined) matches = st.compileStages(lookup.pipeline, matches, sub)
  const doc = setFields(scope, `${s}.doc`, [[lookup.as, collectArray(matches, st)]])
  return { sql: `SELECT ${doc} AS doc${rel.ordered ? `, ${s}.ord` : ''} FROM (${rel.sql}) ${s}`, ordered: rel.ordered }
}

const FACET_FORBIDDEN = new Set(['$facet', '$out', '$merge'])

/** $facet: one document with an array per sub-pipeline, all reading one materialized input. */
export function compileFacet (spec: unknown, rel: Rel, st: CompileState): Rel {
  const entries = spec !== null && typeof spec === 'object' && !Array.isArray(spec) ? Object.entries(spec) : []
  if (entries.length === 0 || !entries.every(([, p]) => Array.isArray(p))) {
    throw new QuireError('INVALID_QUERY', '$facet needs {name: [stages], ...}')
  }
  if (entries.length > MAX_FACET_PIPELINES) {
    throw new QuireError('QUERY_TOO_COMPLEX', `$facet may have at most ${MAX_FACET_PIPELINES} sub-pipelines`)
  }
  const sub = nestedState(st, '$facet')
  const c = freshName(st, 'c')
  const input: Rel = { sql: `SELECT ${c}.doc${rel.ordered ? `, ${c}.ord` : ''} FROM ${c}`, ordered: rel.ordered }
  const outputs = entries.map(([name, pipeline]): [string, string] => {
    const forbidden = (pipeline as unknown[]).flatMap(stage => stage !== null && typeof stage === 'object' ? Object.keys(stage) : [])
      .find(key => FACET_FORBIDDEN.has(key))
    if (forbidden !== undefined) throw new QuireError('INVALID_QUERY', `${forbidden} is not allowed inside $facet`)
    return [checkFieldName(name), collectArray(st.compileStages(pipeline as unknown[], input, sub), st)]
  })
  return { sql: `WITH ${c} AS MATERIALIZED (${rel.sql}) SELECT ${jsonObject(outputs)} AS doc`, ordered: false }
}
