// The pieces every compiled statement is written with, so that no compiler splices a value or a
// name into SQL its own way: identifiers, literals and JSON field paths quoted (paths checked by
// src/validation/field-path.ts); client values bound as $n parameters, never spliced into the
// text; boolean conditions combined (every result can stand as an operand of AND, an OR is
// parenthesized; negation is NULL-safe, so a NULL operand counts as "does not match").
import { QuireError } from '../errors.ts'
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

export function joinAnd(parts: string[]): string {
  if (parts.length === 0) return 'TRUE'
  return parts.length === 1 ? parts[0] : parts.map(p => `(${p})`).join(' AND ')
}

export function joinOr(parts: string[]): string {
  if (parts.length === 0) return 'FALSE'
  return parts.length === 1 ? parts[0] : `(${parts.map(p => `(${p})`).join(' OR ')})`
}

export function negate(expr: string): string {
  return `(${expr}) IS NOT TRUE`
}

/** The PostgreSQL protocol's limit on the parameters of one statement. */
const MAX_PARAMETERS = 65_535

/** A value that can be bound to a placeholder. */
export type SqlValue = string | number | boolean | null

export interface SqlParamsOptions {
  /**
   * Casts each JSON value once per execution of the statement (an InitPlan) instead of where it
   * is used. For statements run prepared, with a generic plan: PostgreSQL evaluates
   * `$n::text::jsonb` again for every row it is compared with (parsing the JSON text, 0.8 us a row
   * on the bench's walk, about as much as the walk itself). Not for statements planned for their
   * values, whose planner then sees a constant, not the InitPlan's unknown value.
   */
  castJsonOnce?: boolean
}

export class SqlParams {
  readonly values: SqlValue[] = []
  /** Set by conditions whose best plan depends on their values (see StatementOptions.planForValues). */
  planForValues = false

  constructor(private readonly options: SqlParamsOptions = {}) {}

  /** Binds a value and returns its placeholder ("$1", "$2", ...). */
  add(value: SqlValue): string {
    if (this.values.length >= MAX_PARAMETERS)
      throw new QuireError('QUERY_TOO_COMPLEX', `The query needs more than ${MAX_PARAMETERS} values`)
    this.values.push(value)
    return `$${this.values.length}`
  }

  /** Binds a JSON value as text and casts it to jsonb (postgres.js would otherwise re-encode strings). */
  addJson(value: unknown): string {
    const cast = `${this.add(JSON.stringify(value))}::text::jsonb`
    return this.options.castJsonOnce === true ? `(SELECT ${cast})` : cast
  }
}
