// Compiles MongoDB aggregation expressions to jsonb SQL over the current document
// (SQL NULL = missing): field paths, $$variables, literals, objects, arrays, operators.
import { QuireError } from '../../errors.ts'
import { checkFieldName, parseFieldPath } from '../../validation/field-path.ts'
import { isPlainObject } from '../../validation/values.ts'
import { boolJson, buildObject, resolveDocumentPath, resolveFieldPath, truthy } from './jsonb-sql.ts'
import type { ExprCompiler, OperatorCompiler, Scope } from './pipeline-state.ts'
import { CONDITION_OPERATORS, VALUE_OPERATORS } from './expression-operators.ts'
import { DATA_CONDITIONS, DATA_OPERATORS } from './expression-data-operators.ts'

/** Deepest nesting of operators, arrays and objects inside one expression. */
const MAX_EXPRESSION_DEPTH = 32

const VALUE_TABLE: Record<string, OperatorCompiler> = { ...VALUE_OPERATORS, ...DATA_OPERATORS }
const CONDITION_TABLE: Record<string, OperatorCompiler> = { ...CONDITION_OPERATORS, ...DATA_CONDITIONS }

/** jsonb SQL of an expression evaluated against `scope.doc`; SQL NULL when the result is missing. */
export function compileExpression(expr: unknown, scope: Scope): string {
  return compileValueAt(expr, scope, 0)
}

/** boolean SQL (never NULL) of an expression's truthiness, as $cond, $match $expr and $and see it. */
export function compileCondition(expr: unknown, scope: Scope): string {
  return compileConditionAt(expr, scope, 0)
}

function compilerAt(scope: Scope, depth: number): ExprCompiler {
  if (depth > MAX_EXPRESSION_DEPTH) {
    throw new QuireError('QUERY_TOO_COMPLEX', `Expressions may nest at most ${MAX_EXPRESSION_DEPTH} levels deep`)
  }
  return {
    scope,
    value: expr => compileValueAt(expr, scope, depth),
    condition: expr => compileConditionAt(expr, scope, depth)
  }
}

function compileValueAt(expr: unknown, scope: Scope, depth: number): string {
  if (typeof expr === 'string') return compileString(expr, scope)
  if (Array.isArray(expr)) {
    const c = compilerAt(scope, depth + 1)
    return `jsonb_build_array(${expr.map(c.value).join(', ')})`
  }
  if (isPlainObject(expr)) {
    const c = compilerAt(scope, depth + 1)
    const op = operatorOf(expr)
    if (op === undefined) {
      return buildObject(
        scope,
        Object.entries(expr).map(([k, v]) => [checkFieldName(k), c.value(v)])
      )
    }
    const args = expr[op]
    if (VALUE_TABLE[op] !== undefined) return VALUE_TABLE[op](args, c)
    if (CONDITION_TABLE[op] !== undefined) return boolJson(CONDITION_TABLE[op](args, c))
    throw new QuireError('UNSUPPORTED_OPERATOR', `Unsupported expression operator: ${op}`)
  }
  return scope.st.params.addJson(expr)
}

function compileConditionAt(expr: unknown, scope: Scope, depth: number): string {
  if (typeof expr === 'boolean') return String(expr)
  if (isPlainObject(expr)) {
    const op = operatorOf(expr)
    if (op !== undefined && CONDITION_TABLE[op] !== undefined) {
      return CONDITION_TABLE[op](expr[op], compilerAt(scope, depth + 1))
    }
  }
  return truthy(compileValueAt(expr, scope, depth))
}

/** The operator name of an operator expression; undefined for a plain object expression. */
function operatorOf(expr: Record<string, unknown>): string | undefined {
  const keys = Object.keys(expr)
  if (!keys.some(k => k.startsWith('$'))) return undefined
  if (keys.length !== 1) {
    throw new QuireError(
      'INVALID_QUERY',
      `An expression with an operator must have exactly one field, got: ${keys.join(', ').slice(0, 80)}`
    )
  }
  return keys[0]
}

/** "$a.b" is a field path, "$$name.a" a variable (with an optional path), anything else a string literal. */
function compileString(text: string, scope: Scope): string {
  if (!text.startsWith('$')) return scope.st.params.addJson(text)
  if (!text.startsWith('$$')) return resolveDocumentPath(scope, parseFieldPath(text.slice(1)))
  const [name, ...path] = text.slice(2).split('.')
  const base = variableValue(name, scope)
  return path.length === 0 ? base : resolveFieldPath(scope, base, parseFieldPath(path.join('.')))
}

function variableValue(name: string, scope: Scope): string {
  if (name === 'ROOT' || name === 'CURRENT') return scope.doc
  if (name === 'REMOVE') return 'NULL::jsonb'
  const value = scope.st.vars.get(name)
  if (value === undefined) throw new QuireError('INVALID_QUERY', `Undefined variable: $$${name.slice(0, 64)}`)
  return value
}
