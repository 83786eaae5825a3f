// Autovacuum's job, for PGlite. PGlite is one process without background workers: nothing ever
// VACUUMs or ANALYZEs its tables, so the old version of every updated or deleted row stays in its
// table and indexes for good (a collection whose documents were each updated five times takes six
// times their space, and keeps growing), index-only scans visit the table for every row, and the
// planner keeps the statistics of the first import. Every minute, each table whose changes since
// its last VACUUM (or ANALYZE) pass autovacuum's default thresholds is vacuumed (or analyzed), one
// statement at a time through the scheduler, like any other statement.
// PGlite forgets its change counters when it closes, so they are carried over in a table
// (quire_housekeeping): without that, the rows a `quire import` loaded were never VACUUMed, and a
// server restarted before a fifth of a table changed never VACUUMed it at all.
import type { Row, SqlClient } from '../sql/sql-client.ts'
import { quoteIdent } from '../sql/quote.ts'
import { outsideRequestScope } from './request-scope.ts'

const INTERVAL_MS = 60_000
/** A pass that takes longer than this is logged: every statement waits for it (the table is large, or was left to bloat). */
const SLOW_MS = 500

/** The change counters of earlier processes, per table, as they stood when each last recorded them. */
const CARRIED_TABLE = 'quire_housekeeping'
const CREATE_CARRIED = `CREATE TABLE IF NOT EXISTS ${CARRIED_TABLE} (
  name text PRIMARY KEY, dead float8 NOT NULL, inserted float8 NOT NULL, modified float8 NOT NULL)`

interface Counts { dead: number, inserted: number, modified: number }
interface TableCounts extends Counts { name: string, tuples: number }

const countsOf = (row: Row): TableCounts =>
  ({ name: String(row.name), tuples: Number(row.tuples ?? 0), dead: Number(row.dead), inserted: Number(row.inserted), modified: Number(row.modified) })

/** This process's counters per table (since it opened PGlite, or since the table's last VACUUM or ANALYZE in it), and the table's row estimate. */
const CURRENT = `SELECT s.relname AS name, greatest(c.reltuples, 0)::float8 AS tuples,
  s.n_dead_tup::float8 AS dead, s.n_ins_since_vacuum::float8 AS inserted, s.n_mod_since_analyze::float8 AS modified
FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
WHERE s.schemaname = current_schema() ORDER BY s.relname`

const RECORD = `INSERT INTO ${CARRIED_TABLE} (name, dead, inserted, modified)
SELECT name, dead, inserted, modified FROM jsonb_to_recordset($1::jsonb) AS r(name text, dead float8, inserted float8, modified float8)
ON CONFLICT (name) DO UPDATE SET dead = excluded.dead, inserted = excluded.inserted, modified = excluded.modified`

/** Autovacuum's default thresholds: a base number of rows plus a share of the table's rows. */
const over = (count: number, base: number, share: number, tuples: number): boolean => count > base + share * tuples

export interface Tidier {
  /** VACUUMs (with ANALYZE) each table due for it, ANALYZEs each due only for that, records the counters; returns the tables tidied. */
  pass: () => Promise<string[]>
  /** Records the counters, for the next process to open the directory. */
  record: () => Promise<void>
}

export function createTidier (client: SqlClient, log: (msg: string) => void = () => {}): Tidier {
  let carried: Map<string, Counts> | undefined
  let lastRecorded = ''

  async function carriedCounts (): Promise<Map<string, Counts>> {
    if (carried) return carried
    await client.exec(CREATE_CARRIED)
    const rows = await client.query(`SELECT name, dead, inserted, modified FROM ${CARRIED_TABLE}`, [], { cost: 'simple' })
    carried = new Map(rows.map(countsOf).map(({ name, dead, inserted, modified }) => [name, { dead, inserted, modified }]))
    return carried
  }

  /** Each table's counters: this process's plus those carried over. */
  async function totals (): Promise<TableCounts[]> {
    const before = await carriedCounts()
    // PGlite's single backend keeps its table counters to itself until they are flushed.
    await client.query('SELECT pg_stat_force_next_flush()', [], { cost: 'simple' })
    return (await client.query(CURRENT, [], { cost: 'simple' })).map(countsOf).map(row => {
      const old = before.get(row.name)
      return old ? { ...row, dead: row.dead + old.dead, inserted: row.inserted + old.inserted, modified: row.modified + old.modified } : row
    })
  }

  async function record (): Promise<void> {
    // Not the table's own counters: recording them would change them, and so write every minute.
    const counts = JSON.stringify((await totals()).filter(({ name }) => name !== CARRIED_TABLE).map(({ name, dead, inserted, modified }) => ({ name, dead, inserted, modified })))
    if (counts === lastRecorded) return
    await client.query(RECORD, [counts], { cost: 'simple' })
    lastRecorded = counts
  }

  async function pass (): Promise<string[]> {
    const tidied: string[] = []
    for (const { name, tuples, dead, inserted, modified } of await totals()) {
      const vacuum = over(dead, 50, 0.2, tuples) || over(inserted, 1000, 0.2, tuples)
      if (!vacuum && !over(modified, 50, 0.1, tuples)) continue
      const started = performance.now()
      await client.exec(`${vacuum ? 'VACUUM (ANALYZE)' : 'ANALYZE'} ${quoteIdent(name)}`)
      const ms = performance.now() - started
      if (ms > SLOW_MS) log(`PGlite housekeeping: ${vacuum ? 'vacuumed' : 'analyzed'} ${name} in ${(ms / 1000).toFixed(1)} s`)
      // This process's counters restart with the pass; so do those carried over (totals loaded them).
      const old = carried?.get(name)
      if (vacuum) carried?.delete(name)
      else if (old) old.modified = 0
      tidied.push(name)
    }
    await record()
    return tidied
  }

  return { pass, record }
}

/** One housekeeping pass over a PGlite database (the bench uses it on a freshly seeded directory). */
export async function tidyTables (client: SqlClient, log?: (msg: string) => void): Promise<string[]> {
  return await createTidier(client, log).pass()
}

export interface Housekeeping {
  /** Stops the rounds; waits for one that is running, then records the counters. */
  stop: () => Promise<void>
}

/** Runs a pass every `intervalMs`, outside any request, one round at a time. */
export function startPgliteHousekeeping (client: SqlClient, log: (msg: string) => void, intervalMs = INTERVAL_MS): Housekeeping {
  const tidier = createTidier(client, log)
  let running: Promise<void> | undefined
  const failed = (err: unknown): void => { log(`PGlite housekeeping failed: ${(err as Error).message}`) }
  const timer = setInterval(() => {
    running ??= outsideRequestScope(tidier.pass)
      .then(() => {}, failed)
      .finally(() => { running = undefined })
  }, intervalMs)
  timer.unref()
  return {
    stop: async () => {
      clearInterval(timer)
      await running
      await outsideRequestScope(tidier.record).catch(failed)
    }
  }
}
