// Progress of a long index build on a PostgreSQL server: while the build runs, another connection
// reads pg_stat_progress_create_index every few seconds and logs the phase and how far it is.
import type { SqlClient } from './sql-client.ts'

const PROGRESS_INTERVAL_MS = 3000

interface BuildProgress { phase: string, done: string | number, total: string | number }

/** "phase 42%" from one progress row (blocks while scanning the table, tuples while loading the tree). */
export function describeProgress (row: BuildProgress): string {
  const total = Number(row.total)
  return total > 0 ? `${row.phase} ${Math.floor((Number(row.done) * 100) / total)}%` : row.phase
}

/**
 * Runs `build` and, when a `monitor` client (a connection other than the building one) is given,
 * logs the build's progress every `intervalMs` until it ends. Polling errors are ignored.
 */
export async function withBuildProgress (monitor: SqlClient | undefined, table: string, label: string,
  log: (msg: string) => void, build: () => Promise<void>, intervalMs = PROGRESS_INTERVAL_MS): Promise<void> {
  if (!monitor) return await build()
  let polling = false
  const timer = setInterval(() => {
    if (polling) return
    polling = true
    monitor.query(
      'SELECT phase, CASE WHEN tuples_total > 0 THEN tuples_done ELSE blocks_done END AS done, ' +
      'CASE WHEN tuples_total > 0 THEN tuples_total ELSE blocks_total END AS total ' +
      'FROM pg_stat_progress_create_index WHERE relid = to_regclass($1)', [table])
      .then(rows => { if (rows[0]) log(`${label}: ${describeProgress(rows[0] as unknown as BuildProgress)}`) })
      .catch(() => {})
      .finally(() => { polling = false })
  }, intervalMs)
  try { await build() } finally { clearInterval(timer) }
}
