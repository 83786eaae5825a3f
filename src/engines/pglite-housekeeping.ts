// Autovacuum's job, for PGlite. PGlite is one process without background workers: nothing ever
// VACUUMs or ANALYZEs its tables, so the old version of every updated or deleted row stays in its
// table and indexes for good (a collection whose documents were each updated five times takes six
// times their space, and keeps growing), index-only scans visit the table for every row, and the
// planner keeps the statistics of the first import. Every minute, each table whose changes since
// its last VACUUM (or ANALYZE) pass autovacuum's default thresholds is vacuumed (or analyzed), one
// statement at a time through the scheduler, like any other statement.
import type { SqlClient } from '../sql/sql-client.ts'
import { quoteIdent } from '../sql/quote.ts'
import { outsideRequestScope } from './request-scope.ts'

const INTERVAL_MS = 60_000
/** A pass that takes longer than this is logged: every statement waits for it (the table is large, or was left to bloat). */
const SLOW_MS = 500

/** Autovacuum's default thresholds: a base number of rows plus a share of the table's rows. */
const threshold = (base: number, share: number): string => `${base} + ${share} * greatest(c.reltuples, 0)`

const DUE = `SELECT s.relname AS name,
  (s.n_dead_tup > ${threshold(50, 0.2)} OR s.n_ins_since_vacuum > ${threshold(1000, 0.2)}) AS vacuum,
  s.n_mod_since_analyze > ${threshold(50, 0.1)} AS analyze
FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
WHERE s.schemaname = current_schema() ORDER BY s.relname`

/** VACUUMs (with ANALYZE) each table due for it, ANALYZEs each due only for that; returns the tables tidied. */
export async function tidyTables (client: SqlClient, log: (msg: string) => void = () => {}): Promise<string[]> {
  // PGlite's single backend keeps its table counters to itself until they are flushed.
  await client.query('SELECT pg_stat_force_next_flush()', [], { cost: 'simple' })
  const due = await client.query(DUE, [], { cost: 'simple' }) as Array<{ name: string, vacuum: boolean, analyze: boolean }>
  const tidied: string[] = []
  for (const { name, vacuum, analyze } of due) {
    if (!vacuum && !analyze) continue
    const started = performance.now()
    await client.exec(`${vacuum ? 'VACUUM (ANALYZE)' : 'ANALYZE'} ${quoteIdent(name)}`)
    const ms = performance.now() - started
    if (ms > SLOW_MS) log(`PGlite housekeeping: ${vacuum ? 'vacuumed' : 'analyzed'} ${name} in ${(ms / 1000).toFixed(1)} s`)
    tidied.push(name)
  }
  return tidied
}

export interface Housekeeping {
  /** Stops the rounds; waits for one that is running. */
  stop: () => Promise<void>
}

/** Runs tidyTables every `intervalMs`, outside any request, one round at a time. */
export function startPgliteHousekeeping (client: SqlClient, log: (msg: string) => void, intervalMs = INTERVAL_MS): Housekeeping {
  let running: Promise<void> | undefined
  const timer = setInterval(() => {
    running ??= outsideRequestScope(() => tidyTables(client, log))
      .then(() => {}, (err: unknown) => { log(`PGlite housekeeping failed: ${(err as Error).message}`) })
      .finally(() => { running = undefined })
  }, intervalMs)
  timer.unref()
  return {
    stop: async () => {
      clearInterval(timer)
      await running
    }
  }
}
