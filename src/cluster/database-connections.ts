// At start, before any worker runs: do WORKERS processes with PG_POOL_SIZE connections each fit
// under the PostgreSQL server's max_connections? One that does not would fail at run time with
// `sorry, too many clients already` (and lock out psql too) on a host with many cores; it is
// refused with one line instead, naming the figures and what to change.
import postgres from 'postgres'
import type { Config } from '../config.ts'
import { StartupError } from '../startup-error.ts'
import { postgresTarget } from '../storage/postgres/postgres-url.ts'

/**
 * Connections a process holds besides its pool: the change log's LISTEN connection, and the
 * credential notices' own client and its LISTEN connection (src/engines/credential-notices.ts).
 */
export const CONNECTIONS_BESIDES_POOL = 3

export interface ServerLimits {
  maxConnections: number
  /** Connections kept for superusers and roles with pg_use_reserved_connections (psql's way in). */
  reserved: number
}

/** Throws a StartupError when `workers` processes of `poolSize` connections need more than the server gives. */
export function checkConnections(workers: number, poolSize: number, limits: ServerLimits): void {
  const needed = workers * (poolSize + CONNECTIONS_BESIDES_POOL)
  const allowed = limits.maxConnections - limits.reserved
  if (needed <= allowed) return
  const fitting = Math.floor(allowed / (poolSize + CONNECTIONS_BESIDES_POOL))
  throw new StartupError(
    `WORKERS ${workers} × (PG_POOL_SIZE ${poolSize} + ${CONNECTIONS_BESIDES_POOL}) = ${needed} PostgreSQL ` +
      `connections, ` +
      `but the server allows ${allowed} (max_connections ${limits.maxConnections}, ${limits.reserved} reserved): ` +
      `set WORKERS to at most ${fitting}, lower PG_POOL_SIZE, or raise max_connections`
  )
}

/** The server's limits, read over one short-lived connection. */
export async function readServerLimits(url: string): Promise<ServerLimits> {
  const target = postgresTarget(url)
  const sql = postgres(target.url, {
    ...(target.host !== undefined && { host: target.host }),
    max: 1,
    onnotice: () => {},
    connect_timeout: 10
  })
  try {
    const [row] = await sql<Array<{ max: number; reserved: number }>>`
      SELECT current_setting('max_connections')::int AS max,
             current_setting('superuser_reserved_connections')::int
               + coalesce(current_setting('reserved_connections', true), '0')::int AS reserved`
    return { maxConnections: row.max, reserved: row.reserved }
  } finally {
    await sql.end({ timeout: 5 })
  }
}

/**
 * Refuses a start whose workers would not fit under a PostgreSQL server's max_connections (MongoDB:
 * nothing to check). A server that cannot be read now is left to the start itself, which names why.
 */
export async function checkDatabaseConnections(config: Config): Promise<void> {
  if (!/^postgres(ql)?:\/\//.test(config.databaseUrl)) return
  const limits = await readServerLimits(config.databaseUrl).catch(() => undefined)
  if (limits !== undefined) checkConnections(config.workers, config.pgPoolSize, limits)
}
