// The engine-neutral check of a MongoDB update document ($set, $unset, $inc, $push,
// $pull, $addToSet) into its terms: known operators, valid paths, JSON-safe values,
// the operand shapes each operator takes, and no change to protected fields.
// An update without operators ({"bar": "x"}) means $set, as Mongoose (and so JXP) reads it.
import { QuireError } from '../errors.ts'
import { parseFieldPath } from './field-path.ts'
import { LIMITS } from './limits.ts'
import { isPlainObject, toJsonValue } from './values.ts'

const UPDATE_OPERATORS = ['$set', '$unset', '$inc', '$push', '$pull', '$addToSet'] as const

export type UpdateOperator = (typeof UPDATE_OPERATORS)[number]

/** One term of a checked update document: [operator, field path, value]. */
export type UpdateTerms = Array<[operator: UpdateOperator, path: string, value: unknown]>

function invalid(message: string): QuireError {
  return new QuireError('INVALID_QUERY', message)
}

/** The operand of $push/$addToSet: one value or {$each: [values]}. */
function checkAdditions(op: string, value: unknown): unknown {
  if (!isPlainObject(value) || !('$each' in value)) return toJsonValue(value)
  if (Object.keys(value).length !== 1 || !Array.isArray(value.$each))
    throw invalid(`${op} takes a value or {"$each": [values]}`)
  return { $each: toJsonValue(value.$each) }
}

/** The operand of $pull: one value or {$in: [values]}. */
function checkRemovals(value: unknown): unknown {
  if (!isPlainObject(value) || !('$in' in value)) return toJsonValue(value)
  if (Object.keys(value).length !== 1 || !Array.isArray(value.$in))
    throw invalid('$pull takes a value or {"$in": [values]}')
  return { $in: toJsonValue(value.$in) }
}

function checkOperand(op: UpdateOperator, value: unknown): unknown {
  switch (op) {
    case '$inc':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid('$inc needs a number')
      return value
    case '$push':
    case '$addToSet':
      return checkAdditions(op, value)
    case '$pull':
      return checkRemovals(value)
    default:
      return toJsonValue(value)
  }
}

/** The operator-keyed form of an update: plain field updates mean $set; mixing both is refused. */
function withOperators(update: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(update)
  const operators = keys.filter(k => k.startsWith('$')).length
  if (operators === 0) return { $set: update }
  if (operators < keys.length) throw invalid('An update cannot mix update operators and plain fields')
  return update
}

/**
 * The terms of a client's update document. `protectedPath(path)` names paths no update may
 * change (system fields); they are a 400 naming the path.
 */
export function checkUpdate(update: unknown, protectedPath: (path: string) => boolean): UpdateTerms {
  if (!isPlainObject(update)) throw invalid('An update must be an object of update operators or fields')
  const terms: UpdateTerms = []
  for (const [op, fields] of Object.entries(withOperators(update))) {
    if (!(UPDATE_OPERATORS as readonly string[]).includes(op))
      throw new QuireError('UNSUPPORTED_OPERATOR', `Unsupported update operator: ${op.slice(0, 40)}`)
    if (!isPlainObject(fields)) throw invalid(`${op} needs an object of fields`)
    for (const [path, value] of Object.entries(fields)) {
      parseFieldPath(path)
      if (protectedPath(path)) throw invalid(`${path.slice(0, 64)} cannot be changed by an update`)
      terms.push([op as UpdateOperator, path, checkOperand(op as UpdateOperator, value)])
    }
  }
  if (terms.length === 0) throw invalid('The update changes nothing')
  if (terms.length > LIMITS.updateFields)
    throw new QuireError('QUERY_TOO_COMPLEX', `At most ${LIMITS.updateFields} fields in one update`)
  return terms
}
