// SQL for MongoDB's value conditions on one field (equality and $in, null-or-missing, ranges,
// regular expressions): the index-friendly form when the field's kind allows, else the general one.
// General forms test the field's values and, for arrays, their elements (one level), as MongoDB does;
// equality to scalars uses the forms the collection's GIN index serves (src/compiler/filter/containment.ts).
import { QuireError } from '../../errors.ts'
import { isComparableScalar, jsonTypeOf, type JsonValue } from '../../validation/values.ts'
import type { ScalarField } from './index-expression.ts'
import { containmentDocument, equalityPath, type Containment } from './containment.ts'
import { fieldPath, jsonpathLiteral, jsonpathString, nullOrMissingPath } from '../json-path.ts'
import { joinOr } from '../sql-logic.ts'
import type { SqlParams } from '../sql-params.ts'

/** One field of the document a condition is about. */
export interface FieldRef {
  /** SQL expression of the jsonb document holding the field. */
  doc: string
  segs: string[]
  /** Set when the schema declares a scalar kind for the field. */
  scalar?: ScalarField
  /** Set when equality may be tested by containment (a declared field without a leading b-tree index). */
  containment?: Containment
  params: SqlParams
}

export type RangeOperator = '$gt' | '$gte' | '$lt' | '$lte'
const RANGE_SQL: Record<RangeOperator, string> = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' }

/** jsonb_path_exists with the values bound as jsonpath variables. */
export function pathExistsWithVars(field: FieldRef, path: string, vars: Record<string, JsonValue>): string {
  return `jsonb_path_exists(${field.doc}, ${jsonpathLiteral(path)}, ${field.params.addJson(vars)})`
}

export function pathExists(field: FieldRef, path: string): string {
  return `${field.doc} @? ${jsonpathLiteral(path)}`
}

/** Matches when the field equals one of `values`, with MongoDB's array and null semantics. */
export function compileEquality(field: FieldRef, values: JsonValue[]): string {
  const scalars = values.filter(isComparableScalar)
  const documents = values.filter(v => v !== null && typeof v === 'object')
  const parts: string[] = []
  if (values.includes(null)) parts.push(compileNullOrMissing(field))
  if (scalars.length > 0) parts.push(compileScalarEquality(field, scalars))
  if (documents.length > 0) parts.push(compileDocumentEquality(field, documents))
  return joinOr(parts)
}

/** `{field: null}`: the field is null or missing (see nullOrMissingPath). */
function compileNullOrMissing(field: FieldRef): string {
  if (field.scalar) return `${field.scalar.expr} IS NULL`
  return pathExists(field, nullOrMissingPath(field.segs))
}

function compileScalarEquality(field: FieldRef, values: Array<string | number | boolean>): string {
  const { scalar, containment } = field
  if (containment === undefined && scalar && values.every(v => jsonTypeOf(v) === scalar.jsonType)) {
    const bind = (value: JsonValue): string =>
      scalar.isText ? field.params.add(value as string) : field.params.addJson(value)
    const elements = scalar.isText ? 'jsonb_array_elements_text' : 'jsonb_array_elements'
    const right =
      values.length === 1 ? bind(values[0]) : `ANY(ARRAY(SELECT ${elements}(${field.params.addJson(values)})))`
    return `${scalar.expr} = ${right}`
  }
  field.params.planForValues = true
  if (containment !== undefined && values.length === 1) {
    return `${field.doc} @> ${field.params.addJson(containmentDocument(field.segs, values[0], containment))}`
  }
  return `${field.doc} @? ${field.params.add(equalityPath(field.segs, values, containment === undefined))}::jsonpath`
}

/** Arrays and documents: equal to the field's value or to one of its elements (jsonb equality). */
function compileDocumentEquality(field: FieldRef, values: JsonValue[]): string {
  const path = fieldPath(field.segs)
  const candidates =
    `SELECT jsonb_path_query(${field.doc}, ${jsonpathLiteral(path)}) AS v ` +
    `UNION ALL SELECT jsonb_path_query(${field.doc}, ${jsonpathLiteral(`${path}[*]`)})`
  return (
    `EXISTS (SELECT 1 FROM (${candidates}) AS x WHERE x.v IN (SELECT ` +
    `jsonb_array_elements(${field.params.addJson(values)})))`
  )
}

/** $gt, $gte, $lt, $lte: type-bracketed, so `$gt: 5` matches numbers only. */
export function compileRange(field: FieldRef, operator: RangeOperator, value: JsonValue): string {
  if (value === null) return operator === '$gte' || operator === '$lte' ? compileNullOrMissing(field) : 'FALSE'
  if (!isComparableScalar(value)) {
    throw new QuireError('INVALID_QUERY', `${operator} needs a string, number, boolean or date operand`)
  }
  const sqlOperator = RANGE_SQL[operator]
  const scalar = field.scalar
  if (scalar && jsonTypeOf(value) === scalar.jsonType) {
    const bound = scalar.isText ? field.params.add(value as string) : field.params.addJson(value)
    return `${scalar.expr} ${sqlOperator} ${bound}`
  }
  return pathExistsWithVars(field, `${fieldPath(field.segs)} ? (@.type() != "array" && @ ${sqlOperator} $v)`, {
    v: value
  })
}

/**
 * A string value or string element matches the (already translated) ARE pattern. The general
 * form is one jsonpath `like_regex`; the path, holding the pattern as a JSON-escaped string
 * literal, is a bound parameter.
 */
export function compileRegexMatch(field: FieldRef, pattern: string): string {
  if (field.scalar?.isText) return `(${field.scalar.raw}) ~ ${field.params.add(pattern)}`
  const path = `lax ${fieldPath(field.segs)} ? (@.type() == "string" && @ like_regex ${jsonpathString(pattern)})`
  return `jsonb_path_exists(${field.doc}, ${field.params.add(path)}::jsonpath)`
}
