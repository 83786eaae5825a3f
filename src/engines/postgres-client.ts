// SqlClient for a PostgreSQL server through postgres.js (the fastest driver
// measured here under concurrency), with a statement timeout on every query;
// a transaction that loses a deadlock runs again.
import postgres from 'postgres'
import type { SqlClient, Row } from '../sql/sql-client.ts'
import { SqlError } from '../sql/sql-client.ts'
import type { SqlValue } from '../sql/sql-params.ts'

function toSqlError (err: unknown): never {
  const e = err as { message?: string, code?: string, constraint_name?: string }
  if (e && typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) throw new SqlError(String(e.message), e.code, e.constraint_name)
  throw err
}

/** Deadlock victims (40P01) and serialization failures (40001): the whole transaction can simply run again. */
const RETRYABLE = new Set(['40P01', '40001'])
const TRANSACTION_ATTEMPTS = 3

function wrap (sql: postgres.Sql | postgres.TransactionSql): SqlClient {
  return {
    kind: 'postgres',
    query: async (text: string, values: SqlValue[] = []) => {
      try {
        return await sql.unsafe(text, values as postgres.ParameterOrJSON<never>[], { prepare: true }) as unknown as Row[]
      } catch (err) { return toSqlError(err) }
    },
    exec: async (text: string) => {
      try { await sql.unsafe(text) } catch (err) { toSqlError(err) }
    },
    transaction: async (work) => {
      if (!('begin' in sql)) return await work(wrap(sql))
      for (let attempt = 1; ; attempt++) {
        try {
          return await sql.begin(tx => work(wrap(tx))) as Awaited<ReturnType<typeof work>>
        } catch (err) {
          if (attempt < TRANSACTION_ATTEMPTS && RETRYABLE.has((err as { code?: string }).code ?? '')) continue
          return toSqlError(err)
        }
      }
    },
    close: async () => { if ('end' in sql) await sql.end({ timeout: 5 }) }
  }
}

export function openPostgres (url: string, statementTimeoutMs: number): SqlClient {
  const sql = postgres(url, {
    max: Number(process.env.PG_POOL_SIZE ?? 10),
    onnotice: () => {},
    // A server out of reach is reported (503) within the statement timeout, not after postgres.js's 30 s.
    connect_timeout: statementTimeoutMs > 0 ? Math.ceil(statementTimeoutMs / 1000) : 30,
    // Reconnect attempts wait at most 0.5 s (postgres.js grows the wait to 20 s): queries meanwhile
    // wait for the attempt, so a long wait is a hang while the server is down and after it is back.
    backoff: (retries: number) => Math.min(0.05 * retries, 0.5),
    // JIT compiles these short jsonb statements for tens of ms each (measured ~13x their run time).
    connection: { statement_timeout: statementTimeoutMs, application_name: 'quire', jit: 'off' }
  })
  return wrap(sql)
}
