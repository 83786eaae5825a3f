// The small SQL client interface that both PostgreSQL engines (PGlite in a
// worker thread, a PostgreSQL server through postgres.js) implement.
import type { SqlValue } from './sql-params.ts'

export type Row = Record<string, unknown>

export interface SqlClient {
  readonly kind: 'pglite' | 'postgres'
  /** Runs one statement with bound parameters and returns its rows. */
  query: (text: string, values?: SqlValue[]) => Promise<Row[]>
  /** Runs several statements without parameters (DDL). */
  exec: (text: string) => Promise<void>
  /** Runs `work` inside one transaction: committed when it resolves, rolled back when it throws. */
  transaction: <T>(work: (tx: SqlClient) => Promise<T>) => Promise<T>
  close: () => Promise<void>
  /**
   * PostgreSQL only: calls `onPayload` with each NOTIFY on `channel` (on a connection of its own),
   * and `onListen` each time listening (re)starts; notifications sent while it was down are lost.
   */
  listen?: (channel: string, onPayload: (payload: string) => void, onListen: () => void) => Promise<() => Promise<void>>
}

/** A database error as the engines see it: PostgreSQL's SQLSTATE code and message. */
export class SqlError extends Error {
  constructor (message: string, readonly code: string | undefined, readonly constraint?: string) {
    super(message)
  }
}
