// Compiles a checked MongoDB filter document (src/validation/check-query.ts has
// validated its shape, limits and values) into one boolean SQL expression over a jsonb
// document (pure, no I/O): logical operators, field conditions, $not, $all and
// $elemMatch here; the value, shape and regex conditions in their own modules.
// Values are always bound parameters.
import type { FieldKindLookup, Filter } from '../../query/types.ts'
import type { TypeName } from '../../validation/type-names.ts'
import {
  compileEquality,
  compileRange,
  compileRegexMatch,
  type FieldRef,
  type RangeOperator
} from './compile-comparison.ts'
import { compileExists, compileSize, compileType } from './compile-element-ops.ts'
import { compileRegex, readRegex } from '../../validation/regex/regex-dialect.ts'
import { isValueCriteria } from '../../validation/check-query.ts'
import { isOperatorObject, toJsonValue } from '../../validation/values.ts'
import { scalarField } from './index-expression.ts'
import type { ContainmentLookup } from './compile-comparison.ts'
import { arrayElementsPath, jsonpathLiteral } from '../json-path.ts'
import { parseFieldPath } from '../../validation/field-path.ts'
import { joinAnd, joinOr, negate, type SqlParams } from '../sql-text.ts'

export { indexExpression } from './index-expression.ts'

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
  /** Paths whose equality may be tested by containment (compile-comparison.ts); same trust as kindOf. */
  containment?: ContainmentLookup
}

interface CompileState {
  params: SqlParams
  doc: string
  kindOf?: FieldKindLookup
  containment?: ContainmentLookup
  /** Shared by the whole filter: subquery aliases handed out. */
  aliases: { n: number }
}

/** A boolean SQL expression that holds for the documents a checked `filter` matches ("TRUE" for {}). */
export function compileFilter(filter: Filter, ctx: FilterContext): string {
  return compileDocument(filter, { ...ctx, aliases: { n: 0 } })
}

function compileDocument(filter: Filter, state: CompileState): string {
  return joinAnd(Object.entries(filter).map(([key, value]) => compileClause(key, value, state)))
}

function compileClause(key: string, value: unknown, state: CompileState): string {
  if (!key.startsWith('$')) return compileFieldCondition(fieldRef(key, state), value, state)
  const parts = (value as Filter[]).map(filter => compileDocument(filter, state))
  switch (key) {
    case '$and':
      return joinAnd(parts)
    case '$or':
      return joinOr(parts)
    case '$nor':
      return negate(joinOr(parts))
    default:
      throw new Error(`unchecked filter operator ${key}`)
  }
}

function fieldRef(path: string, state: CompileState): FieldRef {
  const segs = parseFieldPath(path)
  return {
    doc: state.doc,
    segs,
    params: state.params,
    scalar: scalarField(state.doc, segs, state.kindOf?.(path)),
    containment: state.containment?.(path)
  }
}

function compileFieldCondition(field: FieldRef, value: unknown, state: CompileState): string {
  if (isOperatorObject(value)) return compileOperators(field, value, state)
  if (value instanceof RegExp) return compileRegexMatch(field, compileRegex(readRegex(value)))
  return compileEquality(field, [toJsonValue(value)])
}

function compileOperators(field: FieldRef, operators: Record<string, unknown>, state: CompileState): string {
  const parts = Object.entries(operators)
    .filter(([op]) => op !== '$options')
    .map(([op, operand]) => compileOperator(field, op, operand, operators, state))
  return joinAnd(parts)
}

function compileOperator(
  field: FieldRef,
  op: string,
  operand: unknown,
  operators: Record<string, unknown>,
  state: CompileState
): string {
  switch (op) {
    case '$eq':
      return compileEquality(field, [toJsonValue(operand)])
    case '$ne':
      return negate(compileEquality(field, [toJsonValue(operand)]))
    case '$in':
      return compileIn(field, operand as unknown[])
    case '$nin':
      return negate(compileIn(field, operand as unknown[]))
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return compileRange(field, op as RangeOperator, toJsonValue(operand))
    case '$exists':
      return compileExists(field, operand)
    case '$type':
      return compileType(field, operand as TypeName | TypeName[])
    case '$size':
      return compileSize(field, operand as number)
    case '$regex':
      return compileRegexMatch(field, compileRegex(readRegex(operand, operators.$options)))
    case '$not':
      return negate(
        operand instanceof RegExp
          ? compileRegexMatch(field, compileRegex(readRegex(operand)))
          : compileOperators(field, operand as Record<string, unknown>, state)
      )
    case '$all':
      return compileAll(field, operand as unknown[], state)
    case '$elemMatch':
      return compileElemMatch(field, operand as Filter, state)
    default:
      throw new Error(`unchecked filter operator ${op}`)
  }
}

/** $in: equal to one of the values, or matching one of the regular expressions. */
function compileIn(field: FieldRef, list: unknown[]): string {
  const values = list.filter(v => !(v instanceof RegExp)).map(toJsonValue)
  const patterns = list.filter((v): v is RegExp => v instanceof RegExp)
  const parts = values.length > 0 ? [compileEquality(field, values)] : []
  parts.push(...patterns.map(re => compileRegexMatch(field, compileRegex(readRegex(re)))))
  return joinOr(parts)
}

/** $all: every entry matches as it would alone (equality, a regular expression or an $elemMatch). */
function compileAll(field: FieldRef, entries: unknown[], state: CompileState): string {
  if (entries.length === 0) return 'FALSE'
  return joinAnd(
    entries.map(entry => {
      if (entry instanceof RegExp) return compileRegexMatch(field, compileRegex(readRegex(entry)))
      if (!isOperatorObject(entry)) return compileEquality(field, [toJsonValue(entry)])
      return compileElemMatch(field, entry.$elemMatch as Filter, state)
    })
  )
}

/** $elemMatch: the field is an array with an element meeting all the criteria. */
function compileElemMatch(field: FieldRef, criteria: Filter, state: CompileState): string {
  const alias = `e${++state.aliases.n}`
  const elements = jsonpathLiteral(arrayElementsPath(field.segs))
  const inner = { ...state, doc: `${alias}.v`, kindOf: undefined, containment: undefined }
  const condition = isValueCriteria(criteria)
    ? compileOperators(
        { doc: `jsonb_build_object('v', ${alias}.v)`, segs: ['v'], params: state.params },
        criteria,
        inner
      )
    : `jsonb_typeof(${alias}.v) = 'object' AND ${compileDocument(criteria, inner)}`
  return (
    `EXISTS (SELECT 1 FROM (SELECT jsonb_path_query(${field.doc}, ${elements}) AS v) AS ${alias} ` +
    `WHERE ${condition})`
  )
}
