// The engine-neutral check of aggregation expressions and of the field paths a
// pipeline names: supported operators only, bounded depth and size, known variables, and no
// path that names a hidden (password) field. Operator arity and operand types are
// left to each engine's translation, which answers a 400 of its own.
import { QuireError } from '../errors.ts'
import { checkFieldName, parseFieldPath } from './field-path.ts'
import { LIMITS } from './limits.ts'
import { EXPRESSION_OPERATORS, SYSTEM_VARIABLES } from './pipeline-operators.ts'
import { isPlainObject, toJsonValue } from './values.ts'

/** What an expression may name where it is evaluated. */
export interface ExpressionScope {
  /** Field names no path may contain, in any segment. */
  hidden: ReadonlySet<string>
  /** `let` variables in scope ($lookup pipelines). */
  vars: ReadonlySet<string>
  /** Shared by every expression of the request: terms checked so far (LIMITS.expressionTerms). */
  counter: { terms: number }
}

/** Validates a field path of a pipeline; INVALID_FIELD when a segment names a hidden field. */
export function checkPipelinePath(path: string, hidden: ReadonlySet<string>): string {
  const found = parseFieldPath(path).find(segment => hidden.has(segment))
  if (found !== undefined)
    throw new QuireError('INVALID_FIELD', `${found} cannot be used in a pipeline: it holds a password hash`)
  return path
}

function checkVariable(text: string, scope: ExpressionScope): void {
  const [name, ...path] = text.slice(2).split('.')
  if (!(SYSTEM_VARIABLES as readonly string[]).includes(name) && !scope.vars.has(name)) {
    throw new QuireError('INVALID_QUERY', `Undefined variable: $$${name.slice(0, 64)}`)
  }
  if (path.length > 0) checkPipelinePath(path.join('.'), scope.hidden)
}

/** The operator of an operator expression, or undefined for an object literal ({a: "$x"}). */
function operatorOf(expr: Record<string, unknown>): string | undefined {
  const keys = Object.keys(expr)
  if (!keys.some(k => k.startsWith('$'))) return undefined
  if (keys.length !== 1) {
    throw new QuireError(
      'INVALID_QUERY',
      `An expression with an operator must have exactly one field, got: ${keys.join(', ').slice(0, 80)}`
    )
  }
  if (!(EXPRESSION_OPERATORS as readonly string[]).includes(keys[0])) {
    throw new QuireError('UNSUPPORTED_OPERATOR', `Unsupported expression operator: ${keys[0].slice(0, 64)}`)
  }
  return keys[0]
}

/** Counts `terms` more of the request's expressions; QUERY_TOO_COMPLEX beyond LIMITS.expressionTerms. */
function spend(scope: ExpressionScope, terms: number): void {
  scope.counter.terms += terms
  if (scope.counter.terms > LIMITS.expressionTerms) {
    throw new QuireError(
      'QUERY_TOO_COMPLEX',
      `A pipeline's expressions may have at most ${LIMITS.expressionTerms} terms (operators, operands, ` +
        `fields and $dateToString format characters together)`
    )
  }
}

/** Throws a 400 QuireError when `expr` is not an expression every engine evaluates alike. */
export function checkExpression(expr: unknown, scope: ExpressionScope, depth = 0): void {
  if (depth > LIMITS.expressionDepth) {
    throw new QuireError('QUERY_TOO_COMPLEX', `Expressions may nest at most ${LIMITS.expressionDepth} levels deep`)
  }
  spend(scope, 1)
  if (typeof expr === 'string') {
    if (expr.startsWith('$$')) checkVariable(expr, scope)
    else if (expr.startsWith('$')) checkPipelinePath(expr.slice(1), scope.hidden)
    return
  }
  if (Array.isArray(expr)) {
    for (const item of expr) checkExpression(item, scope, depth + 1)
    return
  }
  if (!isPlainObject(expr)) return
  const op = operatorOf(expr)
  if (op === '$literal') {
    toJsonValue(expr.$literal)
    return
  }
  if (op === '$dateToString' && isPlainObject(expr[op]) && typeof expr[op].format === 'string')
    spend(scope, expr[op].format.length)
  if (op !== undefined) return checkExpression(expr[op], scope, depth + 1)
  for (const [key, value] of Object.entries(expr)) {
    checkPipelinePath(checkFieldName(key), scope.hidden)
    checkExpression(value, scope, depth + 1)
  }
}
