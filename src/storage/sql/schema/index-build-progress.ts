// Progress of long schema changes (index builds, the full-text column) while they run: every few
// seconds, the phase and percent of an index build read from pg_stat_progress_create_index on
// another connection, or else the time spent so far (table rewrites).
import type { SqlClient } from '../sql-client.ts'

const PROGRESS_INTERVAL_MS = 3000

interface BuildProgress {
  phase: string
  done: string | number
  total: string | number
}

/** "phase 42%" from one progress row (blocks while scanning the table, tuples while loading the tree). */
export function describeProgress(row: BuildProgress): string {
  const total = Number(row.total)
  return total > 0 ? `${row.phase} ${Math.floor((Number(row.done) * 100) / total)}%` : row.phase
}

async function indexBuildProgress(monitor: SqlClient, table: string): Promise<string | undefined> {
  const rows = await monitor.query(
    'SELECT phase, CASE WHEN tuples_total > 0 THEN tuples_done ELSE blocks_done END AS done, ' +
      'CASE WHEN tuples_total > 0 THEN tuples_total ELSE blocks_total END AS total ' +
      'FROM pg_stat_progress_create_index WHERE relid = to_regclass($1)',
    [table],
    { cost: 'simple' }
  )
  return rows[0] ? describeProgress(rows[0] as unknown as BuildProgress) : undefined
}

/**
 * Runs `build` on `table` and logs `label: <progress>` every `intervalMs` until it ends. `monitor`,
 * a client outside the building transaction, reads an index build's progress; polling errors are ignored.
 */
export async function withBuildProgress(
  monitor: SqlClient | undefined,
  table: string,
  label: string,
  log: (msg: string) => void,
  build: () => Promise<void>,
  intervalMs = PROGRESS_INTERVAL_MS
): Promise<void> {
  const started = Date.now()
  let polling = false
  const report = async (): Promise<void> => {
    const progress = monitor && (await indexBuildProgress(monitor, table).catch(() => undefined))
    log(`${label}: ${progress ?? `${Math.round((Date.now() - started) / 1000)} s so far`}`)
  }
  const timer = setInterval(() => {
    if (polling) return
    polling = true
    void report().finally(() => {
      polling = false
    })
  }, intervalMs)
  try {
    await build()
  } finally {
    clearInterval(timer)
  }
}
