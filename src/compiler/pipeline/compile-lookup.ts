// $lookup (localField/foreignField and let+pipeline) and $facet: nested pipelines
// compiled into correlated subqueries that aggregate their documents into arrays.
import { QuireError } from '../../errors.ts'
import { compileFilter } from '../filter/compile-filter.ts'
import { isPlainObject } from '../../validation/values.ts'
import { quoteLiteral } from '../sql-text.ts'
import { parseFieldPath } from '../../validation/field-path.ts'
import { bindValues, jsonObject, resolveFieldPath, JSON_NULL } from './jsonb-sql.ts'
import { freshName, type CompileState, type Rel, type Scope } from './pipeline-state.ts'
import { compileExpression } from './compile-expression.ts'
import { setFields } from './compile-reshape.ts'

const LOOKUP_KEYS = new Set(['from', 'as', 'localField', 'foreignField', 'let', 'pipeline'])

interface LookupSpec {
  from: string
  as: string
  localField?: string
  foreignField?: string
  let?: Record<string, unknown>
  pipeline?: unknown[]
}

/** The jsonb array of a relation's documents, in its order. */
function collectArray(rel: Rel, st: CompileState): string {
  const x = freshName(st, 'x')
  return (
    `(SELECT COALESCE(jsonb_agg(${x}.doc${rel.ordered ? ` ORDER BY ${x}.ord` : ''}), '[]'::jsonb) FROM ` +
    `(${rel.sql}) ${x})`
  )
}

function parseLookup(spec: unknown): LookupSpec {
  const s = spec as Record<string, unknown> | null
  const valid =
    isPlainObject(s) &&
    typeof s.from === 'string' &&
    typeof s.as === 'string' &&
    Object.keys(s).every(k => LOOKUP_KEYS.has(k)) &&
    (s.localField === undefined) === (s.foreignField === undefined) &&
    (s.localField === undefined || (typeof s.localField === 'string' && typeof s.foreignField === 'string')) &&
    (s.pipeline === undefined ? s.localField !== undefined && s.let === undefined : Array.isArray(s.pipeline)) &&
    (s.let === undefined || isPlainObject(s.let))
  if (!valid) {
    throw new QuireError(
      'INVALID_QUERY',
      '$lookup needs {from, localField, foreignField, as} or {from, let?, pipeline, as}'
    )
  }
  return s as unknown as LookupSpec
}

/** Text key of a jsonb value under lookup equality: numbers by value (1 = 1.0), others as JSON text. */
function matchKey(v: string): string {
  return `CASE WHEN jsonb_typeof(${v}) = 'number' THEN trim_scale((${v})::numeric)::text ELSE (${v})::text END`
}

/** SQL (per local document) of the values to match: an array's elements, else the value (null when missing). */
function localValues(scope: Scope, localField: string): string {
  const local = resolveFieldPath(scope, scope.doc, parseFieldPath(localField))
  return bindValues(
    scope,
    [local],
    ([v]) => `CASE WHEN jsonb_typeof(${v}) = 'array' THEN ${v} ELSE jsonb_build_array(COALESCE(${v}, ${JSON_NULL})) END`
  )
}

/** text[] of the local match keys; for the foreign _id, the string values themselves. */
function localKeys(values: string, foreignField: string, st: CompileState): string {
  const x = freshName(st, 'x')
  return foreignField === '_id'
    ? `ARRAY(SELECT ${x}.v #>> '{}' FROM jsonb_array_elements(${values}) AS ${x}(v) WHERE ` +
        `jsonb_typeof(${x}.v) = 'string')`
    : `ARRAY(SELECT ${matchKey(`${x}.v`)} FROM jsonb_array_elements(${values}) AS ${x}(v))`
}

/** text[] of a foreign document's match keys: the value or an array's elements; missing matches null. */
function foreignKeys(doc: string, foreignField: string, st: CompileState): string {
  const path = `lax $${parseFieldPath(foreignField)
    .map(s => `."${s}"`)
    .join('')}`
  const x = freshName(st, 'x')
  return (
    `ARRAY(SELECT ${matchKey(`${x}.v`)} FROM jsonb_path_query(${doc}, ${quoteLiteral(`${path}[*]`)}) AS ${x}(v)) || ` +
    `CASE WHEN jsonb_path_exists(${doc}, ${quoteLiteral(path)}) THEN '{}'::text[] ELSE ARRAY['null'] END`
  )
}

/**
 * $lookup as a correlated subquery per document. Per-document inputs (local match keys,
 * `let` variables) are computed once in a LATERAL; the foreign rows, their permission
 * filter and match keys once per statement in a materialized CTE (joins on the foreign
 * _id use the primary key instead). Local arrays match by element, foreign arrays too.
 */
export function compileLookup(spec: unknown, rel: Rel, st: CompileState): Rel {
  const lookup = parseLookup(spec)
  const { table, filter } = st.ctx.lookup(lookup.from)
  const [s, f, lv, fk] = [freshName(st, 's'), freshName(st, 'f'), freshName(st, 'lv'), freshName(st, 'fk')]
  const scope = { st, doc: `${s}.doc` }
  const where =
    Object.keys(filter).length === 0 ? 'true' : compileFilter(filter, { params: st.params, doc: `${f}.doc` })
  const perDocument: string[] = []
  const vars = new Map(st.vars)
  for (const [name, expr] of Object.entries(lookup.let ?? {})) {
    perDocument.push(`${compileExpression(expr, scope)} AS v${perDocument.length}`)
    vars.set(name, `${lv}.v${perDocument.length - 1}`)
  }
  let foreign = `WITH ${fk} AS MATERIALIZED (SELECT ${f}.doc FROM ${table} ${f} WHERE ${where}) `
  let matches: Rel = { sql: `SELECT ${fk}.doc FROM ${fk}`, ordered: false }
  if (lookup.localField !== undefined) {
    const foreignField = lookup.foreignField as string
    perDocument.push(`${localKeys(localValues(scope, lookup.localField), foreignField, st)} AS keys`)
    if (foreignField === '_id') {
      foreign = ''
      matches = {
        sql: `SELECT ${f}.doc FROM ${table} ${f} WHERE ${f}._id = ANY (${lv}.keys) AND ${where}`,
        ordered: false
      }
    } else {
      foreign =
        `WITH ${fk} AS MATERIALIZED (SELECT ${f}.doc, ${foreignKeys(`${f}.doc`, foreignField, st)} AS keys ` +
        `FROM ${table} ${f} WHERE ${where}) `
      matches = { sql: `SELECT ${fk}.doc FROM ${fk} WHERE ${fk}.keys && ${lv}.keys`, ordered: false }
    }
  }
  if (lookup.pipeline !== undefined)
    matches = st.compileStages(lookup.pipeline, matches, { ...st, vars, kindOf: undefined })
  const lateral =
    perDocument.length === 0 ? '' : ` CROSS JOIN LATERAL (SELECT ${perDocument.join(', ')} OFFSET 0) ${lv}`
  const doc = setFields(scope, `${s}.doc`, [[lookup.as, collectArray(matches, st)]])
  return {
    sql: `${foreign}SELECT ${doc} AS doc${rel.ordered ? `, ${s}.ord` : ''} FROM (${rel.sql}) ${s}${lateral} OFFSET 0`,
    ordered: rel.ordered
  }
}

/**
 * $facet (checked: named sub-pipelines, none holding a $facet): one document with an array per sub-pipeline, all
 * reading one materialized input.
 */
export function compileFacet(spec: unknown, rel: Rel, st: CompileState): Rel {
  const entries = Object.entries(spec as Record<string, unknown[]>)
  const c = freshName(st, 'c')
  const input: Rel = { sql: `SELECT ${c}.doc${rel.ordered ? `, ${c}.ord` : ''} FROM ${c}`, ordered: rel.ordered }
  const outputs = entries.map(([name, pipeline]): [string, string] => [
    name,
    collectArray(st.compileStages(pipeline, input, st), st)
  ])
  return { sql: `WITH ${c} AS MATERIALIZED (${rel.sql}) SELECT ${jsonObject(outputs)} AS doc`, ordered: false }
}
