// SQL for MongoDB's value conditions on one field (equality and $in, null-or-missing, ranges,
// regular expressions): the index-friendly form when the field's kind allows, else the general one.
// General forms test the field's values and, for arrays, their elements (one level), as MongoDB does.
// Equality to scalars uses the forms the collection's GIN index (jsonb_path_ops over the whole
// document, src/compiler/ddl/schema-ddl.ts) serves: containment (`doc @> {"a":{"b":v}}`) where the
// model declares the field's kind, a jsonpath (`doc @? '$."a" ? (@ == v)'`) everywhere else.
import { QuireError } from '../../errors.ts'
import { isComparableScalar, jsonTypeOf, type JsonValue } from '../../validation/values.ts'
import type { ScalarField } from './index-expression.ts'
import type { Model } from '../../models/model-definition.ts'
import { SYSTEM_FIELDS } from '../../models/model-definition.ts'
import { fieldSpecAt } from '../../models/field-kinds.ts'
import { fieldPath, jsonpathLiteral, jsonpathString, nullOrMissingPath } from '../json-path.ts'
import { joinOr, type SqlParams } from '../sql-text.ts'

/**
 * How an equality on a path may use containment: 'value' when the schema declares a scalar kind
 * for it (the field holds that value), 'element' when it declares an array of scalars (the array
 * holds it); undefined when the general form is needed, or when a declared b-tree index leads
 * with the field (that index serves the scalar form, and reads a filtered page in order).
 */
export type Containment = 'value' | 'element'
export type ContainmentLookup = (path: string) => Containment | undefined

const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'date', 'id'])
/** System fields equality may use containment for (`_deleted` matches nearly every row: its own form). */
const SYSTEM_SCALARS = new Set<string>(SYSTEM_FIELDS.filter(f => f !== '_deleted'))

export function containmentLookup(model: Model): ContainmentLookup {
  const indexed = new Set(model.indexes.map(index => index.fields[0]))
  return path => {
    if (indexed.has(path)) return undefined
    if (SYSTEM_SCALARS.has(path)) return 'value'
    const spec = fieldSpecAt(model, path)
    if (spec === undefined) return undefined
    if (SCALAR_TYPES.has(spec.type)) return 'value'
    return spec.type === 'array' && spec.items !== undefined && SCALAR_TYPES.has(spec.items.type)
      ? 'element'
      : undefined
  }
}

/** The document `doc @>` tests for a declared field: {"a": {"b": v}}, or {"a": {"b": [v]}} for an array's element. */
function containmentDocument(
  segs: string[],
  value: string | number | boolean,
  containment: Containment
): Record<string, unknown> {
  const leaf: unknown = containment === 'element' ? [value] : value
  return segs.reduceRight<Record<string, unknown>>((inner, seg) => ({ [seg]: inner }), leaf as Record<string, unknown>)
}

function jsonpathValue(value: string | number | boolean): string {
  return typeof value === 'string' ? jsonpathString(value) : String(value)
}

/** `a || b || ...` as a balanced tree: a long $in list must not nest a thousand levels deep. */
function balancedOr(terms: string[]): string {
  if (terms.length === 1) return terms[0]
  const half = Math.ceil(terms.length / 2)
  return `(${balancedOr(terms.slice(0, half))}) || (${balancedOr(terms.slice(half))})`
}

/**
 * A jsonpath that exists when a value of the field, or an element of an array value (one level, as
 * MongoDB), equals one of `values`. The values are literals in the path, which is bound as a
 * parameter: the GIN index extracts them (a jsonpath variable would hide them from it).
 * `untyped`: the field's kind is unknown, so nested arrays must not be unwrapped a second time.
 */
function equalityPath(segs: string[], values: Array<string | number | boolean>, untyped: boolean): string {
  const equal = balancedOr(values.map(v => `@ == ${jsonpathValue(v)}`))
  const test = untyped ? `@.type() != "array" && (${equal})` : equal
  return `lax ${fieldPath(segs)} ? (${test})`
}

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
