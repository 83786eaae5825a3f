// The grammar of field paths in client input ("yack.n", "items.0.sku"): every
// filter, sort, projection, update and pipeline path is checked here before any
// engine sees it. Names that would reach JavaScript's object machinery are refused.
import { QuireError } from '../errors.ts'

const FIELD_SEGMENT = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/
const ARRAY_INDEX = /^(0|[1-9][0-9]{0,5})$/
const MAX_PATH_SEGMENTS = 8
/** Segment names that name JavaScript's prototype machinery, not data: never a field. */
const RESERVED_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype'])

function invalidField(path: string): QuireError {
  return new QuireError('INVALID_FIELD', `Invalid field name: ${JSON.stringify(path).slice(0, 80)}`)
}

/** Whether a segment of a checked path is an array index ("items.0": `0`), not a field name. */
export function isIndexSegment(segment: string): boolean {
  return ARRAY_INDEX.test(segment)
}

/**
 * Validates a dotted field path and returns its segments. Segments are identifiers or, after
 * the first, array indexes; anything else (quotes, operators, empty segments) is a client error.
 */
export function parseFieldPath(path: string): string[] {
  const segments = path.split('.')
  const valid =
    segments.length <= MAX_PATH_SEGMENTS &&
    segments.every((s, i) => (FIELD_SEGMENT.test(s) && !RESERVED_SEGMENTS.has(s)) || (i > 0 && ARRAY_INDEX.test(s)))
  if (!valid) throw invalidField(path)
  return segments
}

/** A single-segment field name (object keys of expressions, accumulator and output names). */
export function checkFieldName(name: string): string {
  if (parseFieldPath(name).length !== 1) throw invalidField(name)
  return name
}
