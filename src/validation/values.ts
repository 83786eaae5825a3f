// Normalizes the values inside a client filter to plain JSON (a Date becomes its ISO
// string, as Quire stores dates) and classifies them for the SQL compiler.
import { QuireError } from '../errors.ts'

type JsonScalar = string | number | boolean | null
export type JsonValue = JsonScalar | JsonValue[] | { [key: string]: JsonValue }
export type JsonType = 'string' | 'number' | 'boolean' | 'null' | 'array' | 'object'

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** True for an object whose keys are query operators ({$gt: 1}); false for a literal document. */
export function isOperatorObject(value: unknown): value is Record<string, unknown> {
  if (!isPlainObject(value)) return false
  const keys = Object.keys(value)
  const operators = keys.filter(k => k.startsWith('$')).length
  if (operators > 0 && operators < keys.length) {
    throw new QuireError('INVALID_QUERY', 'A condition cannot mix operators and field names')
  }
  return operators > 0
}

/** Converts a filter value to JSON: Dates become ISO strings; anything JSON cannot hold is a client error. */
export function toJsonValue(value: unknown): JsonValue {
  if (typeof value === 'string') return checkText(value)
  if (value === null || typeof value === 'boolean') return value
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new QuireError('INVALID_QUERY', 'Numbers in a query must be finite')
    return value
  }
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new QuireError('INVALID_QUERY', 'Invalid date in query')
    return value.toISOString()
  }
  if (Array.isArray(value)) return value.map(toJsonValue)
  if (isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [checkText(k), toJsonValue(v)]))
  }
  throw new QuireError('INVALID_QUERY', `Unsupported value in query: ${Object.prototype.toString.call(value)}`)
}

/** What jsonb cannot hold: NUL characters and unpaired surrogates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is the character this looks for
export const UNSTORABLE_TEXT = /[\u0000]|\p{Cs}/u

/** Refuses text jsonb cannot hold (UNSTORABLE_TEXT) in a query. */
export function checkText(text: string): string {
  if (UNSTORABLE_TEXT.test(text))
    throw new QuireError('INVALID_QUERY', 'Text with NUL characters or unpaired surrogates cannot be queried')
  return text
}

export function jsonTypeOf(value: JsonValue): JsonType {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value as 'string' | 'number' | 'boolean' | 'object'
}

/** True for strings, numbers and booleans: the values jsonpath can compare. */
export function isComparableScalar(value: JsonValue): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
}
