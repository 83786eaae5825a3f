// The document-stream stages: $match, $sort, $limit, $skip, $sample, $unwind and the
// per-document reshaping stages. Each wraps the previous relation in one SELECT.
import { QuireError } from '../../errors.ts'
import type { Filter } from '../../query/types.ts'
import { compileFilter } from '../filter/compile-filter.ts'
import { isPlainObject } from '../../validation/values.ts'
import { quoteLiteral } from '../sql-text.ts'
import { parseFieldPath } from '../../validation/field-path.ts'
import { orderKeys, typeRank, JSON_NULL } from './jsonb-sql.ts'
import { freshName, type CompileState, type Rel, type Scope } from './pipeline-state.ts'
import { compileCondition, compileExpression } from './compile-expression.ts'
import { compileAddFields, compileProject, compileUnset, setFields } from './compile-reshape.ts'

type DocumentBuilder = (scope: Scope, spec: unknown) => string

function ordColumn(rel: Rel, alias: string): string {
  return rel.ordered ? `, ${alias}.ord` : ''
}

/** A stage that maps every document through `build` and keeps the order (fenced: see bindValues). */
function mapDocuments(build: DocumentBuilder) {
  return (spec: unknown, rel: Rel, st: CompileState): Rel => {
    const s = freshName(st, 's')
    return {
      sql: `SELECT ${build({ st, doc: `${s}.doc` }, spec)} AS doc${ordColumn(rel, s)} FROM (${rel.sql}) ${s} OFFSET 0`,
      ordered: rel.ordered
    }
  }
}

export const compileProjectStage = mapDocuments((scope, spec) => compileProject(spec, scope))
export const compileAddFieldsStage = mapDocuments((scope, spec) => compileAddFields(spec, scope))
export const compileUnsetStage = mapDocuments((scope, spec) => compileUnset(spec, scope))

/** SQL condition of a $match filter on `doc`: the query language, plus a top-level $expr. */
export function compileMatchCondition(filter: Filter, scope: Scope): string {
  const { $expr, ...rest } = filter
  const conditions: string[] = []
  if (Object.keys(rest).length > 0)
    conditions.push(compileFilter(rest, { params: scope.st.params, doc: scope.doc, kindOf: scope.st.kindOf }))
  if ('$expr' in filter) conditions.push(compileCondition($expr, scope))
  return conditions.length === 0 ? 'true' : conditions.join(' AND ')
}

export function compileMatch(spec: unknown, rel: Rel, st: CompileState): Rel {
  if (!isPlainObject(spec)) throw new QuireError('INVALID_QUERY', '$match needs a filter object')
  const s = freshName(st, 's')
  const where = compileMatchCondition(spec, { st, doc: `${s}.doc` })
  return { sql: `SELECT ${s}.doc${ordColumn(rel, s)} FROM (${rel.sql}) ${s} WHERE ${where}`, ordered: rel.ordered }
}

/**
 * The sort value of a path: the smallest (largest when descending) value found through
 * arrays, null when missing, [] (sorting first) for an empty array. Paths without arrays
 * take the direct value.
 */
function sortValue(doc: string, segments: string[], desc: boolean): string {
  const prefixes = segments.map((_, i) =>
    segments.slice(0, i + 1).reduce((e, seg) => `${e}->${quoteLiteral(seg)}`, doc)
  )
  const value = prefixes[prefixes.length - 1]
  const direct = [
    ...prefixes.slice(0, -1).map(p => `jsonb_typeof(${p}) = 'object'`),
    `jsonb_typeof(${value}) <> 'array'`
  ]
  const path = `lax $${segments.map(s => `."${s}"`).join('')}`
  const general =
    `COALESCE((SELECT x.v FROM jsonb_path_query(${doc}, ${quoteLiteral(`${path}[*]`)}) AS x(v) ` +
    `ORDER BY ${orderKeys('x.v', desc).join(', ')} LIMIT 1), ` +
    `CASE WHEN jsonb_path_exists(${doc}, ${quoteLiteral(path)}) THEN '[]'::jsonb ELSE ${JSON_NULL} END)`
  return (
    `CASE WHEN ${prefixes[0]} IS NULL THEN ${JSON_NULL} WHEN ${direct.join(' AND ')} THEN ` +
    `COALESCE(${value}, ${JSON_NULL}) ELSE ${general} END`
  )
}

export function compileSort(spec: unknown, rel: Rel, st: CompileState): Rel {
  const entries = isPlainObject(spec) ? Object.entries(spec) : []
  if (entries.length === 0 || !entries.every(([, dir]) => dir === 1 || dir === -1)) {
    throw new QuireError('INVALID_QUERY', '$sort needs {field: 1 | -1, ...}')
  }
  const [s, k] = [freshName(st, 's'), freshName(st, 'k')]
  const keys = entries.map(([path, dir], i) => `${sortValue(`${s}.doc`, parseFieldPath(path), dir === -1)} AS k${i}`)
  const order = entries.flatMap(([, dir], i) => {
    const key = `${k}.k${i}`
    return orderKeys(key, dir === -1, `CASE WHEN ${key} = '[]'::jsonb THEN 0 ELSE ${typeRank(key)} END`)
  })
  return {
    sql:
      `SELECT ${k}.doc, row_number() OVER (ORDER BY ${order.join(', ')}) AS ord ` +
      `FROM (SELECT ${s}.doc, ${keys.join(', ')} FROM (${rel.sql}) ${s} OFFSET 0) ${k}`,
    ordered: true
  }
}

function checkCount(stage: string, value: unknown, min: number): number {
  if (!Number.isSafeInteger(value) || (value as number) < min) {
    throw new QuireError('INVALID_QUERY', `${stage} needs an integer of at least ${min}`)
  }
  return value as number
}

function slice(clause: 'LIMIT' | 'OFFSET', count: number, rel: Rel, st: CompileState): Rel {
  const s = freshName(st, 's')
  const order = rel.ordered ? ` ORDER BY ${s}.ord` : ''
  return {
    sql: `SELECT ${s}.doc${ordColumn(rel, s)} FROM (${rel.sql}) ${s}${order} ${clause} ${st.params.add(count)}::bigint`,
    ordered: rel.ordered
  }
}

export function compileLimit(spec: unknown, rel: Rel, st: CompileState): Rel {
  return slice('LIMIT', checkCount('$limit', spec, 1), rel, st)
}

export function compileSkip(spec: unknown, rel: Rel, st: CompileState): Rel {
  return slice('OFFSET', checkCount('$skip', spec, 0), rel, st)
}

export function compileSample(spec: unknown, rel: Rel, st: CompileState): Rel {
  const size = checkCount('$sample size', isPlainObject(spec) ? spec.size : undefined, 1)
  const s = freshName(st, 's')
  return {
    sql: `SELECT ${s}.doc FROM (${rel.sql}) ${s} ORDER BY random() LIMIT ${st.params.add(size)}::bigint`,
    ordered: false
  }
}

/** $replaceRoot / $replaceWith: documents whose new root is not an object are left out. */
export function compileReplaceRoot(newRoot: unknown, rel: Rel, st: CompileState): Rel {
  const [s, r] = [freshName(st, 's'), freshName(st, 'r')]
  const root = compileExpression(newRoot, { st, doc: `${s}.doc` })
  return {
    sql:
      `SELECT ${r}.doc${ordColumn(rel, r)} FROM (SELECT ${root} AS doc${ordColumn(rel, s)} FROM ` +
      `(${rel.sql}) ${s} OFFSET 0) ${r} ` +
      `WHERE jsonb_typeof(${r}.doc) = 'object'`,
    ordered: rel.ordered
  }
}

interface UnwindSpec {
  path: string
  includeArrayIndex?: string
  preserveNullAndEmptyArrays?: boolean
}

function parseUnwind(spec: unknown): UnwindSpec {
  const options = typeof spec === 'string' ? { path: spec } : spec
  if (
    !isPlainObject(options) ||
    typeof options.path !== 'string' ||
    !options.path.startsWith('$') ||
    Object.keys(options).some(k => !['path', 'includeArrayIndex', 'preserveNullAndEmptyArrays'].includes(k)) ||
    !['undefined', 'string'].includes(typeof options.includeArrayIndex) ||
    !['undefined', 'boolean'].includes(typeof options.preserveNullAndEmptyArrays)
  ) {
    throw new QuireError(
      'INVALID_QUERY',
      '$unwind needs "$path" or {path: "$path", includeArrayIndex?, preserveNullAndEmptyArrays?}'
    )
  }
  return options as unknown as UnwindSpec
}

/** $unwind: one document per array element; a non-array value counts as a one-element array. */
export function compileUnwind(spec: unknown, rel: Rel, st: CompileState): Rel {
  const { path: fieldPath, includeArrayIndex, preserveNullAndEmptyArrays } = parseUnwind(spec)
  const path = fieldPath.slice(1)
  const segments = parseFieldPath(path)
  const [s, u, e] = [freshName(st, 's'), freshName(st, 'u'), freshName(st, 'e')]
  const scope = { st, doc: `${s}.doc` }
  const value = segments.reduce((expr, seg) => `${expr}->${quoteLiteral(seg)}`, `${s}.doc`)
  const isArray = `jsonb_typeof(${value}) = 'array'`
  const elements =
    `SELECT ${e}.v, ${e}.o FROM jsonb_array_elements(CASE WHEN ${isArray} THEN ${value} ELSE ` +
    `jsonb_build_array(${value}) END) ` +
    `WITH ORDINALITY ${e}(v, o) WHERE jsonb_typeof(${value}) <> 'null'`
  const index = (sql: string): Array<[string, string]> =>
    includeArrayIndex === undefined ? [] : [[includeArrayIndex, sql]]
  const unwound = setFields(scope, `${s}.doc`, [
    [path, `${u}.v`],
    ...index(`CASE WHEN ${isArray} THEN to_jsonb(${u}.o - 1) ELSE ${JSON_NULL} END`)
  ])
  let doc = unwound
  if (preserveNullAndEmptyArrays === true) {
    const kept =
      `CASE WHEN ${isArray} THEN ${s}.doc #- ARRAY[${segments.map(quoteLiteral).join(', ')}]::text[] ` +
      `ELSE ${s}.doc END`
    const preserved = includeArrayIndex === undefined ? kept : setFields(scope, kept, index(JSON_NULL))
    doc = `CASE WHEN ${u}.o IS NULL THEN ${preserved} ELSE ${unwound} END`
  }
  const join =
    preserveNullAndEmptyArrays === true
      ? `LEFT JOIN LATERAL (${elements}) ${u} ON true`
      : `CROSS JOIN LATERAL (${elements}) ${u}`
  const ord = rel.ordered ? `, row_number() OVER (ORDER BY ${s}.ord, ${u}.o) AS ord` : ''
  return { sql: `SELECT ${doc} AS doc${ord} FROM (${rel.sql}) ${s} ${join} OFFSET 0`, ordered: rel.ordered }
}
