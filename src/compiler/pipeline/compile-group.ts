// $group with its accumulators and the $count stage: one output document per
// distinct key (missing keys group with null), computed by SQL GROUP BY on jsonb.
import { QuireError } from '../../errors.ts'
import { floatOf, jsonObject, orderKeys, JSON_NULL } from './jsonb-sql.ts'
import { isPlainObject } from '../../validation/values.ts'
import { freshName, type CompileState, type Rel } from './pipeline-state.ts'
import { compileExpression } from './compile-expression.ts'
import { checkFieldName } from '../../validation/field-path.ts'

/** SQL of an accumulator over column `v`; `ord` orders the input when the stream is ordered. */
type Accumulator = (v: string, ord: string | undefined) => string

function orderedBy(ord: string | undefined, desc = false): string {
  return ord === undefined ? '' : ` ORDER BY ${ord}${desc ? ' DESC' : ''}`
}

/** $min / $max: the extreme non-null value in MongoDB's type order, null when there is none. */
function extreme(desc: boolean): Accumulator {
  return v =>
    `COALESCE((array_agg(${v} ORDER BY ${orderKeys(v, desc).join(', ')}) ` +
    `FILTER (WHERE jsonb_typeof(${v}) <> 'null'))[1], ${JSON_NULL})`
}

/** $sum and $avg over float8 SQL (numbers; NULL for any other value, which they skip). */
export const sumOfFloats = (f: string): string => `to_jsonb(COALESCE(sum(${f}), 0::float8))`
export const avgOfFloats = (f: string): string => `COALESCE(to_jsonb(avg(${f})), ${JSON_NULL})`
export const COUNT_ALL = 'to_jsonb(count(*))'

const ACCUMULATORS: Record<string, Accumulator> = {
  $sum: v => sumOfFloats(floatOf(v)),
  $avg: v => avgOfFloats(floatOf(v)),
  $min: extreme(false),
  $max: extreme(true),
  $first: (v, ord) => `COALESCE((array_agg(${v}${orderedBy(ord)}))[1], ${JSON_NULL})`,
  $last: (v, ord) => `COALESCE((array_agg(${v}${orderedBy(ord, true)}))[1], ${JSON_NULL})`,
  $push: (v, ord) => `COALESCE(jsonb_agg(${v}${orderedBy(ord)}) FILTER (WHERE ${v} IS NOT NULL), '[]'::jsonb)`,
  $addToSet: v => `COALESCE(jsonb_agg(DISTINCT ${v}) FILTER (WHERE ${v} IS NOT NULL), '[]'::jsonb)`,
  $count: () => COUNT_ALL
}

/** The operator and argument of one accumulator field ({ total: { $sum: "$n" } }). */
function parseAccumulator(name: string, spec: unknown): [op: string, arg: unknown] {
  const entries = isPlainObject(spec) ? Object.entries(spec) : []
  if (entries.length !== 1 || !entries[0][0].startsWith('$')) {
    throw new QuireError('INVALID_QUERY', `$group field ${name} needs one accumulator, e.g. {"$sum": "$field"}`)
  }
  const [op, arg] = entries[0]
  if (ACCUMULATORS[op] === undefined)
    throw new QuireError('UNSUPPORTED_OPERATOR', `Unsupported accumulator operator: ${op}`)
  if (op === '$count' && !(isPlainObject(arg) && Object.keys(arg).length === 0)) {
    throw new QuireError('INVALID_QUERY', '$count accumulator takes an empty object: {"$count": {}}')
  }
  if (op !== '$count' && Array.isArray(arg))
    throw new QuireError('INVALID_QUERY', `The ${op} accumulator is a unary operator`)
  return [op, arg]
}

export function compileGroup(spec: unknown, rel: Rel, st: CompileState): Rel {
  if (!isPlainObject(spec) || !('_id' in spec)) {
    throw new QuireError('INVALID_QUERY', '$group needs an object with an _id')
  }
  const [s, g] = [freshName(st, 's'), freshName(st, 'g')]
  const scope = { st, doc: `${s}.doc` }
  const columns = [`COALESCE(${compileExpression(spec._id, scope)}, ${JSON_NULL}) AS k`]
  const outputs: Array<[string, string]> = [['_id', `${g}.k`]]
  for (const [name, accSpec] of Object.entries(spec)) {
    if (name === '_id') continue
    const [op, arg] = parseAccumulator(checkFieldName(name), accSpec)
    const column = `a${columns.length}`
    if (op !== '$count') columns.push(`${compileExpression(arg, scope)} AS ${column}`)
    outputs.push([name, ACCUMULATORS[op](`${g}.${column}`, rel.ordered ? `${g}.ord` : undefined)])
  }
  if (rel.ordered) columns.push(`${s}.ord`)
  return {
    sql:
      `SELECT ${jsonObject(outputs)} AS doc FROM (SELECT ${columns.join(', ')} FROM (${rel.sql}) ${s} ` +
      `OFFSET 0) ${g} GROUP BY ${g}.k`,
    ordered: false
  }
}

/** $count: one document {<name>: n}, or none at all when there is no input (as in MongoDB). */
export function compileCount(spec: unknown, rel: Rel, st: CompileState): Rel {
  if (typeof spec !== 'string' || spec.length === 0) throw new QuireError('INVALID_QUERY', '$count needs a field name')
  const s = freshName(st, 's')
  return {
    sql: `SELECT ${jsonObject([[checkFieldName(spec), COUNT_ALL]])} AS doc FROM (${rel.sql}) ${s} HAVING count(*) > 0`,
    ordered: false
  }
}
