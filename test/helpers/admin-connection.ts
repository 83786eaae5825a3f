// A connection of the test's own to an app's PostgreSQL database, beside Quire's pool: to lock
// tables under Quire's statements, watch them in pg_stat_activity and end its backends.
import type { Test } from 'tap'
import postgres from 'postgres'
import type { FastifyInstance } from 'fastify'

/** Two connections to `app`'s database, ended when `t` ends. */
export function adminConnection(t: Test, app: FastifyInstance): postgres.Sql {
  const sql = postgres(app.config.databaseUrl, { max: 2, onnotice: () => {} })
  t.teardown(() => sql.end({ timeout: 1 }))
  return sql
}

/** Locks `table` until the returned function is called: every statement on it waits meanwhile. */
export async function lockTable(sql: postgres.Sql, table: string): Promise<() => Promise<void>> {
  const locker = await sql.reserve()
  await locker`BEGIN`
  await locker.unsafe(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`)
  return async () => {
    await locker`ROLLBACK`
    locker.release()
  }
}
