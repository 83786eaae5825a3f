// The one place identifiers and JSON field paths are checked and quoted for SQL.
import { QuireError } from '../errors.ts'

const FIELD_SEGMENT = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/
const ARRAY_INDEX = /^(0|[1-9][0-9]{0,5})$/
const MAX_PATH_SEGMENTS = 8

/** Quotes an SQL identifier (table, column, index name). */
export function quoteIdent (name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}

/** Quotes an SQL string literal; only for text that never comes from a client (DDL). */
export function quoteLiteral (text: string): string {
  return `'${text.replace(/'/g, "''")}'`
}

/**
 * Validates a dotted field path ("yack.n", "items.0.sku") and returns its segments.
 * Segments are identifiers or array indexes; anything else is a client error.
 */
export function parseFieldPath (path: string): string[] {
  const segments = path.split('.')
  const valid = segments.length <= MAX_PATH_SEGMENTS &&
    segments.every((s, i) => FIELD_SEGMENT.test(s) || (i > 0 && ARRAY_INDEX.test(s)))
  if (!valid) throw new QuireError('INVALID_FIELD', `Invalid field name: ${JSON.stringify(path).slice(0, 80)}`)
  return segments
}

/** SQL expression for the jsonb value at a validated path inside a jsonb column: doc->'a'->'b'. */
export function jsonPathExpr (column: string, path: string): string {
  return parseFieldPath(path).reduce((expr, seg) => `${expr}->${quoteLiteral(seg)}`, column)
}
