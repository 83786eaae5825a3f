// SQL building blocks for MongoDB value semantics over jsonb: type order, truthiness,
// guarded casts, one-time binding of operands and array-aware traversal of paths.
import { quoteLiteral } from '../sql-text.ts'
import { freshName, type Scope } from './pipeline-state.ts'

export const JSON_NULL = "'null'::jsonb"
export const EMPTY_OBJECT = "'{}'::jsonb"

/** SQL that is cheap and side-effect free to repeat: column references, bound literals, constants. */
const CHEAP_SQL =
  /^(?:[a-z][a-z0-9_]*\.[a-z_][a-z0-9_]*|\$\d+::text::jsonb|'[^']*'::jsonb|NULL::jsonb)(?:->'[A-Za-z0-9_]+')*$/

/** MongoDB's type order as a number: missing 0, null 1, numbers 2, strings 3, objects 4, arrays 5, booleans 6. */
export function typeRank(v: string): string {
  return (
    `COALESCE(CASE jsonb_typeof(${v}) WHEN 'null' THEN 1 WHEN 'number' THEN 2 WHEN 'string' THEN 3 ` +
    "WHEN 'object' THEN 4 WHEN 'array' THEN 5 WHEN 'boolean' THEN 6 END, 0)"
  )
}

/**
 * Casts are guarded by the operand's own type test, so that constant folding of bound
 * literals (custom plans) can never raise a cast error: non-numbers give SQL NULL.
 */
export function floatOf(v: string): string {
  return `CASE WHEN jsonb_typeof(${v}) = 'number' THEN (${v})::float8 END`
}

export function numericOf(v: string): string {
  return `CASE WHEN jsonb_typeof(${v}) = 'number' THEN (${v})::numeric END`
}

/** The text of a jsonb string (SQL NULL for other types). */
export function textOf(v: string): string {
  return `CASE WHEN jsonb_typeof(${v}) = 'string' THEN (${v} #>> '{}') END`
}

/** ORDER BY items sorting jsonb values in MongoDB's type order, strings by code point. */
export function orderKeys(v: string, desc: boolean, rank = typeRank(v)): string[] {
  const dir = desc ? ' DESC' : ''
  return [rank, numericOf(v), `(${textOf(v)}) COLLATE "C"`, v].map(k => `${k}${dir}`)
}

/** MongoDB truthiness: false, null, missing and 0 are false; everything else is true. */
export function truthy(v: string): string {
  return `COALESCE((${v}) NOT IN ('null'::jsonb, 'false'::jsonb, '0'::jsonb), false)`
}

/** jsonb of a boolean SQL expression that is never NULL. */
export function boolJson(condition: string): string {
  return `to_jsonb(${condition})`
}

/**
 * Evaluates each value once and hands `body` cheap references to the results (values that
 * are already cheap pass through). OFFSET 0 keeps the planner from inlining the values back
 * into every reference; fenced subqueries below exist for the same reason.
 */
export function bindValues(scope: Scope, values: string[], body: (refs: string[]) => string): string {
  if (values.every(v => CHEAP_SQL.test(v))) return body(values)
  const alias = freshName(scope.st, 'b')
  const refs = values.map((v, i) => (CHEAP_SQL.test(v) ? v : `${alias}.v${i}`))
  const columns = values.flatMap((v, i) => (CHEAP_SQL.test(v) ? [] : [`${v} AS v${i}`]))
  return `(SELECT ${body(refs)} FROM (SELECT ${columns.join(', ')} OFFSET 0) ${alias})`
}

/** -1, 0 or 1 comparing two values in MongoDB's order (missing < null < numbers < strings < ...). */
export function compareValues(scope: Scope, a: string, b: string): string {
  return bindValues(scope, [a, b], ([x, y]) => {
    const [rx, ry] = [typeRank(x), typeRank(y)]
    const both = (type: string): string => `jsonb_typeof(${x}) = '${type}' AND jsonb_typeof(${y}) = '${type}'`
    return (
      `CASE WHEN ${both('number')} THEN sign((${x})::numeric - (${y})::numeric)::int ` +
      `WHEN ${both('string')} THEN CASE WHEN ${x} = ${y} THEN 0 WHEN (${x} #>> '{}') COLLATE "C" < (${y} ` +
      `#>> '{}') THEN -1 ELSE 1 END ` +
      `WHEN ${rx} <> ${ry} THEN sign(${rx} - ${ry})::int ` +
      `WHEN ${x} IS NULL OR ${x} = ${y} THEN 0 WHEN ${x} < ${y} THEN -1 ELSE 1 END`
    )
  })
}

/** compareValues against a literal number or string known at compile time (a shorter, cheaper form). */
export function compareToLiteral(scope: Scope, a: string, literal: number | string): string {
  const param = scope.st.params.add(literal)
  return bindValues(scope, [a], ([x]) =>
    typeof literal === 'number'
      ? `CASE WHEN jsonb_typeof(${x}) = 'number' THEN sign((${x})::numeric - ${param}::numeric)::int ELSE ` +
        `sign(${typeRank(x)} - 2)::int END`
      : `CASE WHEN jsonb_typeof(${x}) = 'string' THEN CASE WHEN (${x} #>> '{}') = ${param}::text THEN 0 ` +
        `WHEN (${x} #>> '{}') COLLATE "C" < ${param}::text THEN -1 ELSE 1 END ELSE sign(${typeRank(x)} - 3)::int END`
  )
}

/**
 * Applies `element` to every element of `v` when it is an array (keeping order and
 * dropping SQL NULL results, so the result is an array) and to `v` itself otherwise.
 */
export function mapArrayAware(scope: Scope, v: string, element: (e: string) => string): string {
  const [src, val, elem, res] = ['m', 'm', 'e', 'r'].map(p => freshName(scope.st, p))
  return (
    `(SELECT CASE WHEN bool_or(NOT ${val}.arr) THEN (array_agg(${res}.x))[1] ` +
    `ELSE COALESCE(jsonb_agg(${res}.x ORDER BY ${elem}.o) FILTER (WHERE ${res}.x IS NOT NULL), '[]'::jsonb) END ` +
    `FROM (SELECT ${src}.v, (jsonb_typeof(${src}.v) = 'array') IS TRUE AS arr FROM (SELECT ${v} AS v ` +
    `OFFSET 0) ${src}) ${val} ` +
    `CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN ${val}.arr THEN ${val}.v ELSE ` +
    `jsonb_build_array(${val}.v) END) ` +
    `WITH ORDINALITY ${elem}(v, o) CROSS JOIN LATERAL (SELECT ${element(`${elem}.v`)} AS x) ${res})`
  )
}

/**
 * The value at a field path with MongoDB's expression semantics: through an array the
 * path yields the array of the values found in its object elements.
 */
export function resolveFieldPath(scope: Scope, base: string, segments: string[]): string {
  const [head, ...rest] = segments
  const value = `${base}->${quoteLiteral(head)}`
  if (rest.length === 0) return value
  return mapArrayAware(scope, value, e => resolveFieldPath(scope, e, rest))
}

/**
 * resolveFieldPath on the current document. Where every step before the last is a field the
 * schema declares an object (validated: never an array), plain `->` gives the same value, and
 * costs a fraction of the array-aware form ($group over 3,000 documents: 73 ms -> 22 ms).
 */
export function resolveDocumentPath(scope: Scope, segments: string[]): string {
  const kindOf = scope.st.kindOf
  const throughObjects =
    kindOf !== undefined &&
    segments.slice(0, -1).every((_, i) => kindOf(segments.slice(0, i + 1).join('.')) === 'object')
  if (!throughObjects) return resolveFieldPath(scope, scope.doc, segments)
  return segments.reduce((expr, seg) => `${expr}->${quoteLiteral(seg)}`, scope.doc)
}

/** A jsonb object of the pairs whose value is not SQL NULL: missing values leave their key out. */
export function buildObject(scope: Scope, pairs: Array<[key: string, value: string]>): string {
  if (pairs.length === 0) return EMPTY_OBJECT
  return bindValues(
    scope,
    pairs.map(([, v]) => v),
    refs => {
      const missing = pairs.map(([k], i) => `CASE WHEN ${refs[i]} IS NULL THEN ${quoteLiteral(k)} END`)
      return (
        `(${jsonObject(pairs.map(([k], i) => [k, refs[i]]))} - ` +
        `array_remove(ARRAY[${missing.join(', ')}]::text[], NULL))`
      )
    }
  )
}

/** A jsonb object of the pairs, SQL NULL values as null (chunked: a function takes at most 100 arguments). */
export function jsonObject(pairs: Array<[key: string, value: string]>): string {
  if (pairs.length === 0) return EMPTY_OBJECT
  const chunks: string[] = []
  for (let i = 0; i < pairs.length; i += 40) {
    chunks.push(
      `jsonb_build_object(${pairs
        .slice(i, i + 40)
        .map(([k, v]) => `${quoteLiteral(k)}, ${v}`)
        .join(', ')})`
    )
  }
  return chunks.join(' || ')
}
