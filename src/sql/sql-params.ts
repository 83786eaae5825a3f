// Collects bound parameter values while SQL text is built; every client value
// reaches the database as a $n parameter, never spliced into the statement.

/** A value that can be bound to a placeholder. */
export type SqlValue = string | number | boolean | null

export class SqlParams {
  readonly values: SqlValue[] = []

  /** Binds a value and returns its placeholder ("$1", "$2", ...). */
  add (value: SqlValue): string {
    this.values.push(value)
    return `$${this.values.length}`
  }

  /** Binds a JSON value as text and casts it to jsonb (postgres.js would otherwise re-encode strings). */
  addJson (value: unknown): string {
    return `${this.add(JSON.stringify(value))}::text::jsonb`
  }
}
