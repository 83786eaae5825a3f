// SQL for the conditions on a field's presence and shape: $exists, $type and $size.
import type { TypeName } from '../../validation/type-names.ts'
import { pathExists, pathExistsWithVars, type FieldRef } from './compile-comparison.ts'
import { fieldPath, leafFilterPath } from '../json-path.ts'
import { joinOr, negate } from '../sql-text.ts'

/** Dates are stored as ISO 8601 UTC strings with milliseconds; `$type: "date"` recognizes that form. */
const ISO_DATE = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{3}Z$'
const NUMBER = '@.type() == "number"'
const INTEGER = '@.type() == "number" && @.floor() == @'

/** Conditions on a value or array element, by $type name; jsonb has one number type for all four. */
const ELEMENT_TYPES: Record<Exclude<TypeName, 'array'>, string> = {
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

export function compileExists(field: FieldRef, wanted: unknown): string {
  const exists = pathExists(field, fieldPath(field.segs))
  return wanted ? exists : negate(exists)
}

/**
 * $type (names checked by the validation step): the value or one of its elements has the type; "array": the value is an
 * array.
 */
export function compileType(field: FieldRef, spec: TypeName | TypeName[]): string {
  return joinOr((Array.isArray(spec) ? spec : [spec]).map(name => compileOneType(field, name)))
}

function compileOneType(field: FieldRef, name: TypeName): string {
  const path = fieldPath(field.segs)
  if (name === 'array') return pathExists(field, `${path}.type() ? (@ == "array")`)
  return pathExists(field, `${path} ? (${ELEMENT_TYPES[name]})`)
}

/**
 * $size (a non-negative integer, checked by the validation step): the value is an array of exactly that many elements.
 */
export function compileSize(field: FieldRef, size: number): string {
  const path = leafFilterPath(field.segs, leaf => `${leaf}.type() == "array" && ${leaf}.size() == $n`)
  return pathExistsWithVars(field, path, { n: size })
}
