// Collects bound parameter values while SQL text is built; every client value
// reaches the database as a $n parameter, never spliced into the statement.

import { QuireError } from '../errors.ts'

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
