// A $group read from a covering index (src/compiler/ddl/covering-columns.ts): when the stages before it
// are filters on covered fields and it groups by a covered field (or null) with $sum, $avg or
// $count of covered numbers, constants or documents, it is compiled over the model's table
// columns alone, so PostgreSQL answers it with an index-only scan. Any other $group returns
// undefined here and is compiled over whole documents (src/compiler/pipeline/compile-group.ts) with the same
// results: each column holds exactly the expression that path reads.
import type { CoveredField } from '../ddl/covering-columns.ts'
import { type SqlParams, quoteIdent } from '../sql-text.ts'
import type { Rel } from './pipeline-state.ts'
import { COUNT_ALL, avgOfFloats, sumOfFloats } from './compile-group.ts'
import { JSON_NULL, jsonObject } from './jsonb-sql.ts'
import { checkFieldName } from '../../validation/field-path.ts'
import { isPlainObject } from '../../validation/values.ts'

/** A float8 operand of $sum/$avg: a covered number's column, or a constant. */
type Operand = { column: string } | { constant: number }

type Output = { op: '$count' } | { op: '$sum' | '$avg'; operand: Operand }

interface CoveredGroup {
  /** The key's field (undefined: `_id: null`, one group). */
  key?: CoveredField
  outputs: Array<[name: string, Output]>
}

/** The covered field a "$path" names, or undefined. */
function fieldOf(arg: unknown, fields: ReadonlyMap<string, CoveredField>): CoveredField | undefined {
  return typeof arg === 'string' && arg.startsWith('$') && !arg.startsWith('$$') ? fields.get(arg.slice(1)) : undefined
}

function operandOf(arg: unknown, fields: ReadonlyMap<string, CoveredField>): Operand | undefined {
  if (typeof arg === 'number' && Number.isFinite(arg)) return { constant: arg }
  const float = fieldOf(arg, fields)?.float
  return float === undefined ? undefined : { column: float }
}

function outputOf(spec: unknown, fields: ReadonlyMap<string, CoveredField>): Output | undefined {
  const entries = isPlainObject(spec) ? Object.entries(spec) : []
  if (entries.length !== 1) return undefined
  const [op, arg] = entries[0]
  if (op === '$count') return isPlainObject(arg) && Object.keys(arg).length === 0 ? { op } : undefined
  if (op !== '$sum' && op !== '$avg') return undefined
  const operand = operandOf(arg, fields)
  return operand && { op, operand }
}

/** The covered form of a $group spec, or undefined when it reads anything the columns do not hold. */
export function planCoveredGroup(spec: unknown, fields: ReadonlyMap<string, CoveredField>): CoveredGroup | undefined {
  if (!isPlainObject(spec) || !('_id' in spec)) return undefined
  const key = spec._id === null ? undefined : fieldOf(spec._id, fields)
  if (spec._id !== null && key === undefined) return undefined
  const outputs: CoveredGroup['outputs'] = []
  for (const [name, accumulator] of Object.entries(spec)) {
    if (name === '_id') continue
    const output = outputOf(accumulator, fields)
    if (output === undefined) return undefined
    outputs.push([checkFieldName(name), output])
  }
  return { key, outputs }
}

/**
 * The statement of a planned covered $group over `table` AS `alias`, rows filtered by `where` (SQL over its columns).
 */
export function compileCoveredGroup(
  plan: CoveredGroup,
  source: { table: string; alias: string; where: string },
  params: SqlParams
): Rel {
  const column = (name: string): string => `${source.alias}.${quoteIdent(name)}`
  const operand = (o: Operand): string => ('column' in o ? column(o.column) : `${params.add(o.constant)}::float8`)
  const accumulate = (o: Output): string =>
    o.op === '$count' ? COUNT_ALL : o.op === '$sum' ? sumOfFloats(operand(o.operand)) : avgOfFloats(operand(o.operand))
  const key = plan.key && column(plan.key.value)
  const keyValue =
    key === undefined ? JSON_NULL : `COALESCE(${plan.key?.jsonb === true ? key : `to_jsonb(${key})`}, ${JSON_NULL})`
  const doc = jsonObject([
    ['_id', keyValue],
    ...plan.outputs.map(([name, o]): [string, string] => [name, accumulate(o)])
  ])
  const where = source.where === '' ? '' : ` WHERE ${source.where}`
  // No key: one group, and none at all for no rows (as MongoDB), which GROUP BY on a key also gives.
  const grouping = key === undefined ? 'HAVING count(*) > 0' : `GROUP BY ${key}`
  return { sql: `SELECT ${doc} AS doc FROM ${source.table} ${source.alias}${where} ${grouping}`, ordered: false }
}
