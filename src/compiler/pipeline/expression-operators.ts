// Arithmetic, comparison, logical and conditional expression operators. Numbers are
// computed as float8 (JavaScript doubles: integral results print as integers).
import { QuireError } from '../../errors.ts'
import { bindValues, compareToLiteral, compareValues, floatOf, numericOf, JSON_NULL } from './jsonb-sql.ts'
import { isPlainObject } from '../../validation/values.ts'
import type { ExprCompiler, OperatorCompiler } from './pipeline-state.ts'

/** The operator's arguments as a list: `{$op: x}` is `{$op: [x]}`; checks the count. */
export function argumentList(name: string, args: unknown, min: number, max = min): unknown[] {
  const list = Array.isArray(args) ? args : [args]
  if (list.length < min || list.length > max) {
    const count = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`
    throw new QuireError('INVALID_QUERY', `${name} takes ${count} argument(s), got ${list.length}`)
  }
  return list
}

/** jsonb of a float8 expression; SQL NULL (a non-number operand) becomes null. */
function numberResult(float: string): string {
  return `COALESCE(to_jsonb(${float}), ${JSON_NULL})`
}

/** An operator over the numeric values of its (once-evaluated) arguments. */
function numeric(name: string, min: number, max: number, build: (nums: string[]) => string): OperatorCompiler {
  return (args, c) => {
    const values = argumentList(name, args, min, max).map(c.value)
    return bindValues(c.scope, values, refs => numberResult(build(refs.map(floatOf))))
  }
}

function variadic(name: string, sqlOperator: string, identity: string): OperatorCompiler {
  return numeric(name, 0, Infinity, nums =>
    nums.length === 0 ? identity : nums.map(n => `(${n})`).join(` ${sqlOperator} `)
  )
}

/** $round: half to even, like MongoDB; the place count must be a literal integer. */
const round: OperatorCompiler = (args, c) => {
  const [value, places = 0] = argumentList('$round', args, 1, 2)
  if (!Number.isInteger(places) || (places as number) < -20 || (places as number) > 100) {
    throw new QuireError('INVALID_QUERY', '$round needs a literal integer place count from -20 to 100')
  }
  const scale = `1e${Math.abs(places as number)}::float8`
  return bindValues(c.scope, [c.value(value)], ([v]) => {
    const n = floatOf(v)
    if (places === 0) return numberResult(`round(${n})`)
    return numberResult(
      (places as number) > 0 ? `round(${n} * ${scale}) / ${scale}` : `round(${n} / ${scale}) * ${scale}`
    )
  })
}

/** $mod: remainder with the sign of the dividend; a zero divisor gives null. */
const mod: OperatorCompiler = (args, c) => {
  const values = argumentList('$mod', args, 2).map(c.value)
  return bindValues(c.scope, values, ([a, b]) =>
    numberResult(`mod(${numericOf(a)}, NULLIF(${numericOf(b)}, 0))::float8`)
  )
}

/** A literal number or string operand (not a field path), compared in a shorter form. */
function isPlainLiteral(value: unknown): value is number | string {
  return typeof value === 'number' || (typeof value === 'string' && !value.startsWith('$'))
}

/** SQL of -1/0/1 comparing the two arguments in MongoDB's order. */
function compileComparison(name: string, args: unknown, c: ExprCompiler): string {
  const [a, b] = argumentList(name, args, 2)
  if (isPlainLiteral(b)) return compareToLiteral(c.scope, c.value(a), b)
  if (isPlainLiteral(a)) return `(-${compareToLiteral(c.scope, c.value(b), a)})`
  return compareValues(c.scope, c.value(a), c.value(b))
}

function comparison(name: string, test: (cmp: string) => string): OperatorCompiler {
  return (args, c) => test(compileComparison(name, args, c))
}

function logical(joiner: string, empty: string): OperatorCompiler {
  return (args, c) => {
    const list = Array.isArray(args) ? args : [args]
    return list.length === 0 ? empty : `(${list.map(c.condition).join(` ${joiner} `)})`
  }
}

/** $cond in its array form [if, then, else] and object form {if, then, else}. */
const cond: OperatorCompiler = (args, c) => {
  let parts: unknown[]
  if (Array.isArray(args)) parts = argumentList('$cond', args, 3)
  else if (isPlainObject(args) && ['if', 'then', 'else'].every(k => k in args)) {
    parts = [args.if, args.then, args.else]
  } else throw new QuireError('INVALID_QUERY', '$cond needs [if, then, else] or {if, then, else}')
  return `CASE WHEN ${c.condition(parts[0])} THEN ${c.value(parts[1])} ELSE ${c.value(parts[2])} END`
}

/** $ifNull: the first argument that is neither null nor missing, else the last one as it is. */
const ifNull: OperatorCompiler = (args, c) => {
  const values = argumentList('$ifNull', args, 2, Infinity).map(c.value)
  const last = values.pop() as string
  return `COALESCE(${values.map(v => `NULLIF(${v}, ${JSON_NULL})`).join(', ')}, ${last})`
}

const literal: OperatorCompiler = (args, c: ExprCompiler) => c.scope.st.params.addJson(args)

/** Operators whose natural SQL result is jsonb. */
export const VALUE_OPERATORS: Record<string, OperatorCompiler> = {
  $add: variadic('$add', '+', '0::float8'),
  $multiply: variadic('$multiply', '*', '1::float8'),
  $subtract: numeric('$subtract', 2, 2, ([a, b]) => `${a} - ${b}`),
  $divide: numeric('$divide', 2, 2, ([a, b]) => `${a} / NULLIF(${b}, 0)`),
  $abs: numeric('$abs', 1, 1, ([a]) => `abs(${a})`),
  $floor: numeric('$floor', 1, 1, ([a]) => `floor(${a})`),
  $ceil: numeric('$ceil', 1, 1, ([a]) => `ceil(${a})`),
  $round: round,
  $mod: mod,
  $cmp: (args, c) => `to_jsonb(${compileComparison('$cmp', args, c)})`,
  $cond: cond,
  $ifNull: ifNull,
  $literal: literal
}

/** Operators whose natural SQL result is a boolean (never NULL). */
export const CONDITION_OPERATORS: Record<string, OperatorCompiler> = {
  $eq: (args, c) => {
    const [a, b] = argumentList('$eq', args, 2).map(c.value)
    return `(${a} IS NOT DISTINCT FROM ${b})`
  },
  $ne: (args, c) => {
    const [a, b] = argumentList('$ne', args, 2).map(c.value)
    return `(${a} IS DISTINCT FROM ${b})`
  },
  $gt: comparison('$gt', cmp => `(${cmp} > 0)`),
  $gte: comparison('$gte', cmp => `(${cmp} >= 0)`),
  $lt: comparison('$lt', cmp => `(${cmp} < 0)`),
  $lte: comparison('$lte', cmp => `(${cmp} <= 0)`),
  $and: logical('AND', 'true'),
  $or: logical('OR', 'false'),
  $not: (args, c) => `(NOT ${c.condition(argumentList('$not', args, 1)[0])})`
}
