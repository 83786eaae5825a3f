// The small SQL client interface the SQL engine runs on (a PostgreSQL server through
// postgres.js: src/storage/postgres/postgres-client.ts), so that its logic reads apart from the driver.
import type { SqlValue } from '../../compiler/sql-text.ts'

export type Row = Record<string, unknown>

/**
 * What a statement may cost. 'simple' addresses at most one document by key (reads and writes by
 * id, auth lookups); 'expensive' may scan (lists, counts, aggregations, bulk writes and every
 * transaction). Expensive statements share a bounded number of slots, so simple ones keep flowing.
 */
export type StatementCost = 'simple' | 'expensive'

export interface StatementOptions {
  /** 'expensive' when not given. */
  cost?: StatementCost
  /**
   * Plan the statement for its values at each run (PostgreSQL: an unnamed statement) instead of
   * letting a prepared statement settle on a generic plan: for conditions whose best plan depends
   * on how many rows a value matches (the GIN forms of src/compiler/filter/compile-comparison.ts).
   */
  planForValues?: boolean
  /**
   * An expensive read that usually takes little time (a list page, a count, an aggregation): on
   * PostgreSQL it runs first on the quick lane (src/storage/postgres/quick-lane.ts), cut at
   * QUICK_STATEMENT_MS, and as an expensive statement only when cut there.
   */
  quickFirst?: boolean
}

export interface SqlClient {
  readonly kind: 'postgres'
  /** Runs one statement with bound parameters and returns its rows. */
  query: (text: string, values?: SqlValue[], options?: StatementOptions) => Promise<Row[]>
  /** Runs several statements without parameters (DDL). */
  exec: (text: string) => Promise<void>
  /** Runs `work` inside one transaction: committed when it resolves, rolled back when it throws. */
  transaction: <T>(work: (tx: SqlClient) => Promise<T>, options?: StatementOptions) => Promise<T>
  close: () => Promise<void>
  /**
   * Calls `onPayload` with each NOTIFY on `channel` (on a connection of its own), and `onListen`
   * each time listening (re)starts; notifications sent while it was down are lost. Absent on a
   * transaction's client.
   */
  listen?: (channel: string, onPayload: (payload: string) => void, onListen: () => void) => Promise<() => Promise<void>>
  /**
   * Runs a statement on the connection `listen` uses (opening one if it is down). PostgreSQL (15 and
   * later) sends a listening connection every notification committed before a statement ahead of
   * that statement's answer, so when the answer comes, those have been handed to `onPayload`.
   */
  queryListener?: (text: string) => Promise<Row[]>
}

/** A database error as the engines see it: PostgreSQL's SQLSTATE code and message. */
export class SqlError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly constraint?: string
  ) {
    super(message)
  }
}
