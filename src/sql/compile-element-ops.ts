// SQL for the conditions on a field's presence and shape: $exists, $type and $size.
import { QuireError } from '../errors.ts'
import { pathExists, pathExistsWithVars, type FieldRef } from './compile-comparison.ts'
import { fieldPath, leafFilterPath } from './json-path.ts'
import { joinOr, negate } from './sql-logic.ts'

/** Dates are stored as ISO 8601 UTC strings with milliseconds; `$type: "date"` recognizes that form. */
const ISO_DATE = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{3}Z$'
const NUMBER = '@.type() == "number"'
const INTEGER = '@.type() == "number" && @.floor() == @'

/** Conditions on a value or array element, by $type alias; jsonb has one number type for all four. */
const ELEMENT_TYPES: Record<string, string> = {
  double: NUMBER,
  number: NUMBER,
  decimal: NUMBER,
  int: INTEGER,
  long: INTEGER,
  string: '@.type() == "string"',
  object: '@.type() == "object"',
  bool: '@.type() == "boolean"',
  null: '@.type() == "null"',
  date: `@.type() == "string" && @ like_regex "${ISO_DATE}"`
}

/** MongoDB's numeric type codes for the aliases above (4 is array). */
const TYPE_CODES: Record<number, string> = { 1: 'double', 2: 'string', 3: 'object', 4: 'array', 8: 'bool', 9: 'date', 10: 'null', 16: 'int', 18: 'long', 19: 'decimal' }

export function compileExists (field: FieldRef, wanted: unknown): string {
  const exists = pathExists(field, fieldPath(field.segs))
  return wanted ? exists : negate(exists)
}

/** $type: the value or one of its elements has the type; "array" means the value is an array. */
export function compileType (field: FieldRef, spec: unknown): string {
  const aliases = Array.isArray(spec) ? spec : [spec]
  if (aliases.length === 0) throw new QuireError('INVALID_QUERY', '$type needs at least one type')
  return joinOr(aliases.map(alias => compileOneType(field, typeName(alias))))
}

function typeName (alias: unknown): string {
  const name = typeof alias === 'number' ? TYPE_CODES[alias] : alias
  if (typeof name !== 'string' || (name !== 'array' && !(name in ELEMENT_TYPES))) {
    throw new QuireError('INVALID_QUERY', `Unknown $type: ${JSON.stringify(alias)}`)
  }
  return name
}

function compileOneType (field: FieldRef, name: string): string {
  const path = fieldPath(field.segs)
  if (name === 'array') return pathExists(field, `${path}.type() ? (@ == "array")`)
  return pathExists(field, `${path} ? (${ELEMENT_TYPES[name]})`)
}

/** $size: the value is an array of exactly that many elements. */
export function compileSize (field: FieldRef, size: unknown): string {
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 0) {
    throw new QuireError('INVALID_QUERY', '$size needs a non-negative integer')
  }
  const path = leafFilterPath(field.segs, leaf => `${leaf}.type() == "array" && ${leaf}.size() == $n`)
  return pathExistsWithVars(field, path, { n: size })
}
