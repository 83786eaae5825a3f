// Compiles a MongoDB filter document into one boolean SQL expression over a jsonb document
// (pure, no I/O): logical operators, field conditions, $not, $all and $elemMatch here; the
// value, shape and regex conditions in their own modules. Values are always bound parameters.
import { QuireError } from '../errors.ts'
import type { FieldKindLookup, Filter } from '../query/types.ts'
import { compileEquality, compileRange, compileRegexMatch, type FieldRef } from './compile-comparison.ts'
import { compileExists, compileSize, compileType } from './compile-element-ops.ts'
import { compileRegex, readRegex } from './compile-regex.ts'
import { isOperatorObject, isPlainObject, toJsonValue } from '../validation/values.ts'
import { scalarField } from './index-expression.ts'
import { arrayElementsPath, jsonpathLiteral } from './json-path.ts'
import { parseFieldPath } from '../validation/field-path.ts'
import { joinAnd, joinOr, negate } from './sql-logic.ts'
import type { SqlParams } from './sql-params.ts'

export { indexExpression } from './index-expression.ts'

/** Nesting levels of filters ($and/$or/$nor, $not, $elemMatch each open one). */
export const MAX_FILTER_DEPTH = 8
/** Conditions in one filter: each operator, implicit equality and logical operator counts. */
export const MAX_FILTER_TERMS = 200
/** Elements of one $in, $nin or $all list. */
export const MAX_IN_VALUES = 1000

export interface FilterContext {
  params: SqlParams
  /** SQL expression of the jsonb document, e.g. 't.doc'. */
  doc: string
  /**
   * Declared kinds of field paths. A scalar kind (string, number, integer, boolean, date) makes
   * the compiler emit the index-friendly form, trusting that the field never holds an array;
   * so a lookup must not claim a scalar kind for a path that crosses an array.
   */
  kindOf?: FieldKindLookup
}

interface CompileState {
  params: SqlParams
  doc: string
  kindOf?: FieldKindLookup
  depth: number
  /** Shared by the whole filter: terms used so far, subquery aliases handed out. */
  budget: { terms: number, aliases: number }
}

/** A boolean SQL expression that holds for the documents `filter` matches ("TRUE" for {}). */
export function compileFilter (filter: Filter, ctx: FilterContext): string {
  const state = { params: ctx.params, doc: ctx.doc, kindOf: ctx.kindOf, depth: 1, budget: { terms: 0, aliases: 0 } }
  return compileDocument(filter, state)
}

function invalidQuery (message: string): QuireError {
  return new QuireError('INVALID_QUERY', message)
}

function unsupported (operator: string): QuireError {
  return new QuireError('UNSUPPORTED_OPERATOR', `Unsupported query operator: ${operator}`)
}

function countTerm (state: CompileState): void {
  if (++state.budget.terms > MAX_FILTER_TERMS) {
    throw new QuireError('QUERY_TOO_COMPLEX', `A filter may hold at most ${MAX_FILTER_TERMS} conditions`)
  }
}

function nestState (state: CompileState, changes: Partial<CompileState> = {}): CompileState {
  if (state.depth >= MAX_FILTER_DEPTH) {
    throw new QuireError('QUERY_TOO_COMPLEX', `Filters may nest at most ${MAX_FILTER_DEPTH} levels`)
  }
  return { ...state, ...changes, depth: state.depth + 1 }
}

function compileDocument (filter: unknown, state: CompileState): string {
  if (!isPlainObject(filter)) throw invalidQuery('A filter must be an object')
  return joinAnd(Object.entries(filter).map(([key, value]) => compileClause(key, value, state)))
}

function compileClause (key: string, value: unknown, state: CompileState): string {
  if (!key.startsWith('$')) return compileFieldCondition(fieldRef(key, state), value, state)
  countTerm(state)
  switch (key) {
    case '$and': return joinAnd(compileSubFilters(key, value, state))
    case '$or': return joinOr(compileSubFilters(key, value, state))
    case '$nor': return negate(joinOr(compileSubFilters(key, value, state)))
    default: throw unsupported(key)
  }
}

function compileSubFilters (operator: string, value: unknown, state: CompileState): string[] {
  if (!Array.isArray(value) || value.length === 0) throw invalidQuery(`${operator} needs a non-empty array of filters`)
  const inner = nestState(state)
  return value.map(filter => compileDocument(filter, inner))
}

function fieldRef (path: string, state: CompileState): FieldRef {
  const segs = parseFieldPath(path)
  return { doc: state.doc, segs, params: state.params, scalar: scalarField(state.doc, segs, state.kindOf?.(path)) }
}

function compileFieldCondition (field: FieldRef, value: unknown, state: CompileState): string {
  if (isOperatorObject(value)) return compileOperators(field, value, state)
  countTerm(state)
  if (value instanceof RegExp) return compileRegexMatch(field, compileRegex(readRegex(value)))
  return compileEquality(field, [toJsonValue(value)])
}

function compileOperators (field: FieldRef, operators: Record<string, unknown>, state: CompileState): string {
  if ('$options' in operators && !('$regex' in operators)) throw invalidQuery('$options needs $regex')
  const parts = Object.entries(operators).filter(([op]) => op !== '$options').map(([op, operand]) => {
    countTerm(state)
    return compileOperator(field, op, operand, operators, state)
  })
  return joinAnd(parts)
}

function compileOperator (field: FieldRef, op: string, operand: unknown, operators: Record<string, unknown>, state: CompileState): string {
  switch (op) {
    case '$eq': return compileEquality(field, [toJsonValue(operand)])
    case '$ne': return negate(compileEquality(field, [toJsonValue(operand)]))
    case '$in': return compileIn(field, op, operand)
    case '$nin': return negate(compileIn(field, op, operand))
    case '$gt': case '$gte': case '$lt': case '$lte': return compileRange(field, op, toJsonValue(operand))
    case '$exists': return compileExists(field, operand)
    case '$type': return compileType(field, operand)
    case '$size': return compileSize(field, operand)
    case '$regex': return compileRegexMatch(field, compileRegex(readRegex(operand, operators.$options)))
    case '$not': return negate(compileNot(field, operand, state))
    case '$all': return compileAll(field, operand, state)
    case '$elemMatch': return compileElemMatch(field, operand, state)
    default: throw unsupported(op)
  }
}

function readList (operator: string, operand: unknown): unknown[] {
  if (!Array.isArray(operand)) throw invalidQuery(`${operator} needs an array`)
  if (operand.length > MAX_IN_VALUES) {
    throw new QuireError('QUERY_TOO_COMPLEX', `${operator} may list at most ${MAX_IN_VALUES} values`)
  }
  return operand
}

/** $in: equal to one of the values, or matching one of the regular expressions. */
function compileIn (field: FieldRef, operator: string, operand: unknown): string {
  const list = readList(operator, operand)
  const values = list.filter(v => !(v instanceof RegExp)).map(toJsonValue)
  const patterns = list.filter((v): v is RegExp => v instanceof RegExp)
  const parts = values.length > 0 ? [compileEquality(field, values)] : []
  parts.push(...patterns.map(re => compileRegexMatch(field, compileRegex(readRegex(re)))))
  return joinOr(parts)
}

function compileNot (field: FieldRef, operand: unknown, state: CompileState): string {
  if (operand instanceof RegExp) return compileRegexMatch(field, compileRegex(readRegex(operand)))
  if (!isOperatorObject(operand)) throw invalidQuery('$not needs an operator object or a regular expression')
  return compileOperators(field, operand, nestState(state))
}

/** $all: every entry matches as it would alone (equality, a regular expression or an $elemMatch). */
function compileAll (field: FieldRef, operand: unknown, state: CompileState): string {
  const entries = readList('$all', operand)
  if (entries.length === 0) return 'FALSE'
  return joinAnd(entries.map(entry => {
    if (entry instanceof RegExp) return compileRegexMatch(field, compileRegex(readRegex(entry)))
    if (!isOperatorObject(entry)) return compileEquality(field, [toJsonValue(entry)])
    const keys = Object.keys(entry)
    if (keys.length !== 1 || keys[0] !== '$elemMatch') throw invalidQuery('$all takes values, regular expressions or {$elemMatch: ...}')
    return compileElemMatch(field, entry.$elemMatch, state)
  }))
}

/** Criteria made only of operators (not $and/$or/$nor) apply to each element as a value. */
function isValueCriteria (criteria: Record<string, unknown>): boolean {
  const keys = Object.keys(criteria)
  return keys.length > 0 && keys.every(k => k.startsWith('$') && k !== '$and' && k !== '$or' && k !== '$nor')
}

/** $elemMatch: the field is an array with an element meeting all the criteria. */
function compileElemMatch (field: FieldRef, criteria: unknown, state: CompileState): string {
  if (!isPlainObject(criteria)) throw invalidQuery('$elemMatch needs an object')
  const alias = `e${++state.budget.aliases}`
  const elements = jsonpathLiteral(arrayElementsPath(field.segs))
  const inner = nestState(state, { doc: `${alias}.v`, kindOf: undefined })
  const condition = isValueCriteria(criteria)
    ? compileOperators({ doc: `jsonb_build_object('v', ${alias}.v)`, segs: ['v'], params: state.params }, criteria, inner)
    : `jsonb_typeof(${alias}.v) = 'object' AND ${compileDocument(criteria, inner)}`
  return `EXISTS (SELECT 1 FROM (SELECT jsonb_path_query(${field.doc}, ${elements}) AS v) AS ${alias} WHERE ${condition})`
}
