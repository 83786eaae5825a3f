// The one place identifiers, literals and JSON field paths are quoted for SQL
// (paths are checked by src/validation/field-path.ts).
import { parseFieldPath } from '../validation/field-path.ts'

/** Quotes an SQL identifier (table, column, index name). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}

/** Quotes an SQL string literal; only for text that never comes from a client (DDL). */
export function quoteLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`
}

/** SQL expression for the jsonb value at a validated path inside a jsonb column: doc->'a'->'b'. */
export function jsonPathExpr(column: string, path: string): string {
  return parseFieldPath(path).reduce((expr, seg) => `${expr}->${quoteLiteral(seg)}`, column)
}
