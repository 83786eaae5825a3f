// The engine-neutral check of a query. Its MongoDB filter document: known operators with
// well-formed operands, limits, valid field paths, JSON-safe values, supported
// regular expressions, and no condition on a hidden (password) field; it returns
// the filter normalized (dates as ISO text, $type codes as names) for the engines,
// which then only translate it. A read's other parameters: the sort ([path, 1 | -1] terms), the
// projection (field paths) and full-text search (only where a full-text index exists).
import { QuireError } from '../errors.ts'
import type { Model } from '../models/model-definition.ts'
import type { Filter, Sort } from '../query/types.ts'
import { parseFieldPath } from './field-path.ts'
import { LIMITS } from './limits.ts'
import { checkRegex } from './regex/check-regex.ts'
import { isOperatorObject, isPlainObject, toJsonValue, type JsonValue } from './values.ts'
import { typeName } from './type-names.ts'

interface CheckState {
  depth: number
  /** Refuse a hidden name in any segment of a path (pipelines, whose documents are reshaped), not only the first. */
  anySegment: boolean
  /** Top-level fields no condition may name; empty inside $elemMatch (paths there are relative). */
  hidden: ReadonlySet<string>
  /** Shared by the whole filter: conditions counted so far. */
  budget: { terms: number }
}

function invalid(message: string): QuireError {
  return new QuireError('INVALID_QUERY', message)
}

function unsupported(operator: string): QuireError {
  return new QuireError('UNSUPPORTED_OPERATOR', `Unsupported query operator: ${operator.slice(0, 64)}`)
}

/** Throws INVALID_FIELD when `path` starts with (or, with `anySegment`, contains) a hidden field. */
function refuseHiddenPath(path: string, st: CheckState): void {
  const segments = path.split('.')
  const found = (st.anySegment ? segments : segments.slice(0, 1)).find(s => st.hidden.has(s))
  if (found !== undefined)
    throw new QuireError('INVALID_FIELD', `${found} cannot be used in a query: it holds a password hash`)
}

/**
 * The checked, normalized copy of a client filter; `hidden` names the fields (password hashes)
 * that no condition may touch. Throws a 400 QuireError naming the first problem.
 */
export function checkFilter(filter: unknown, hidden: readonly string[] = [], anySegment = false): Filter {
  return checkDocument(filter, { depth: 1, anySegment, hidden: new Set(hidden), budget: { terms: 0 } })
}

function countTerm(st: CheckState): void {
  if (++st.budget.terms > LIMITS.filterTerms) {
    throw new QuireError('QUERY_TOO_COMPLEX', `A filter may hold at most ${LIMITS.filterTerms} conditions`)
  }
}

function nest(st: CheckState, hidden = st.hidden): CheckState {
  if (st.depth >= LIMITS.filterDepth)
    throw new QuireError('QUERY_TOO_COMPLEX', `Filters may nest at most ${LIMITS.filterDepth} levels`)
  return { ...st, hidden, depth: st.depth + 1 }
}

function checkDocument(filter: unknown, st: CheckState): Filter {
  if (!isPlainObject(filter)) throw invalid('A filter must be an object')
  return Object.fromEntries(Object.entries(filter).map(([key, value]) => [key, checkClause(key, value, st)]))
}

function checkClause(key: string, value: unknown, st: CheckState): unknown {
  if (!key.startsWith('$')) {
    parseFieldPath(key)
    refuseHiddenPath(key, st)
    return checkCondition(value, st)
  }
  countTerm(st)
  if (key !== '$and' && key !== '$or' && key !== '$nor') throw unsupported(key)
  if (!Array.isArray(value) || value.length === 0) throw invalid(`${key} needs a non-empty array of filters`)
  const inner = nest(st)
  return value.map(sub => checkDocument(sub, inner))
}

function checkCondition(value: unknown, st: CheckState): unknown {
  if (isOperatorObject(value)) return checkOperators(value, st)
  countTerm(st)
  return value instanceof RegExp ? checkRegExp(value) : toJsonValue(value)
}

function checkRegExp(value: RegExp): RegExp {
  checkRegex(value)
  return value
}

function checkOperators(operators: Record<string, unknown>, st: CheckState): Record<string, unknown> {
  if ('$options' in operators && !('$regex' in operators)) throw invalid('$options needs $regex')
  return Object.fromEntries(
    Object.entries(operators).map(([op, operand]) => {
      if (op === '$options') return [op, operand]
      countTerm(st)
      return [op, checkOperator(op, operand, operators, st)]
    })
  )
}

function checkOperator(op: string, operand: unknown, operators: Record<string, unknown>, st: CheckState): unknown {
  switch (op) {
    case '$eq':
    case '$ne':
      return toJsonValue(operand)
    case '$in':
    case '$nin':
      return readList(op, operand).map(v => (v instanceof RegExp ? checkRegExp(v) : toJsonValue(v)))
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return checkRangeOperand(op, operand)
    case '$exists':
      return toJsonValue(operand)
    case '$type':
      return Array.isArray(operand) ? checkTypes(operand) : typeName(operand)
    case '$size':
      return checkSize(operand)
    case '$regex':
      checkRegex(operand, operators.$options)
      return operand
    case '$not':
      return checkNot(operand, st)
    case '$all':
      return checkAll(operand, st)
    case '$elemMatch':
      return checkElemMatch(operand, st)
    default:
      throw unsupported(op)
  }
}

function readList(operator: string, operand: unknown): unknown[] {
  if (!Array.isArray(operand)) throw invalid(`${operator} needs an array`)
  if (operand.length > LIMITS.inValues)
    throw new QuireError('QUERY_TOO_COMPLEX', `${operator} may list at most ${LIMITS.inValues} values`)
  return operand
}

function checkRangeOperand(op: string, operand: unknown): JsonValue {
  const value = toJsonValue(operand)
  if (value !== null && typeof value === 'object')
    throw invalid(`${op} needs a string, number, boolean or date operand`)
  return value
}

function checkTypes(aliases: unknown[]): string[] {
  if (aliases.length === 0) throw invalid('$type needs at least one type')
  return aliases.map(typeName)
}

function checkSize(size: unknown): number {
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 0)
    throw invalid('$size needs a non-negative integer')
  return size
}

function checkNot(operand: unknown, st: CheckState): unknown {
  if (operand instanceof RegExp) return checkRegExp(operand)
  if (!isOperatorObject(operand)) throw invalid('$not needs an operator object or a regular expression')
  return checkOperators(operand, nest(st))
}

/** $all: values, regular expressions or {$elemMatch: ...} entries. */
function checkAll(operand: unknown, st: CheckState): unknown[] {
  return readList('$all', operand).map(entry => {
    if (entry instanceof RegExp) return checkRegExp(entry)
    if (!isOperatorObject(entry)) return toJsonValue(entry)
    const keys = Object.keys(entry)
    if (keys.length !== 1 || keys[0] !== '$elemMatch')
      throw invalid('$all takes values, regular expressions or {$elemMatch: ...}')
    return { $elemMatch: checkElemMatch(entry.$elemMatch, st) }
  })
}

/** Criteria made only of operators (not $and/$or/$nor) apply to each element as a value. */
export function isValueCriteria(criteria: Record<string, unknown>): boolean {
  const keys = Object.keys(criteria)
  return keys.length > 0 && keys.every(k => k.startsWith('$') && k !== '$and' && k !== '$or' && k !== '$nor')
}

function checkElemMatch(criteria: unknown, st: CheckState): Filter {
  if (!isPlainObject(criteria)) throw invalid('$elemMatch needs an object')
  const inner = nest(st, new Set())
  return isValueCriteria(criteria) ? checkOperators(criteria, inner) : checkDocument(criteria, inner)
}

/** The sort, checked; `hidden` names the fields (password hashes) nothing may be sorted on. */
export function checkSort(sort: Sort, hidden: readonly string[]): Sort {
  if (sort.length > LIMITS.sortTerms)
    throw new QuireError('QUERY_TOO_COMPLEX', `A sort may have at most ${LIMITS.sortTerms} fields`)
  for (const [path, direction] of sort) {
    const [first] = parseFieldPath(path)
    if (hidden.includes(first))
      throw new QuireError('INVALID_FIELD', `${first} cannot be used in a query: it holds a password hash`)
    if (direction !== 1 && direction !== -1)
      throw new QuireError('INVALID_QUERY', `Sort direction of ${path.slice(0, 64)} must be 1 or -1`)
  }
  return sort
}

/** The projection's paths, checked (hidden fields are simply never returned: the engines leave them out). */
export function checkFields(fields: string[] | undefined): string[] | undefined {
  if (fields === undefined) return undefined
  if (fields.length > LIMITS.projectionFields)
    throw new QuireError('QUERY_TOO_COMPLEX', `At most ${LIMITS.projectionFields} fields may be selected`)
  for (const path of fields) parseFieldPath(path)
  return fields
}

/** The search text, when the model has a full-text index to search (NO_FULLTEXT_INDEX otherwise). */
export function checkSearch(model: Model, search: string | undefined): string | undefined {
  if (search !== undefined && !model.fulltext)
    throw new QuireError('NO_FULLTEXT_INDEX', `Model ${model.name} has no full-text index: search needs one`)
  return search
}
