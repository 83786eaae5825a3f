// Keeps the server's one-time work on a freshly seeded database out of the scenarios: the
// numbering of the changes captured before it ran (the seed's inserts, the baseline's creates:
// tens of thousands of rows) and their pruning to its retention (at 1,000,000 documents, 900,000
// entries). On PostgreSQL by waiting until the freshly started server has done both; on PGlite,
// whose directory one process opens at a time, by settling the directory before the server
// starts, as `quire import` does (src/engines/pglite-settle.ts: numbering, pruning, and the
// housekeeping's VACUUM of the seeded tables and the pruned log, which took PGlite 0.8 s a minute
// into the run and was the p99 of whichever scenario ran then). run.ts VACUUMs PostgreSQL's seed
// for the same reason.
import postgres from 'postgres'
import { setTimeout as sleep } from 'node:timers/promises'
import { CHANGE_STATE, CHANGE_TABLE } from '../src/sql/change-capture-ddl.ts'
import { loadConfig } from '../src/config.ts'
import { UNNUMBERED } from '../src/engines/sql-change-sequencer.ts'
import { settlePgliteDirectory } from '../src/engines/pglite-settle.ts'
import { log } from './report.ts'

/** Settles the seeded PGlite directory `dir` as `quire import` does (src/engines/pglite-settle.ts), with the retention the server children get. */
export async function settleSeededPglite (dir: string): Promise<void> {
  const { changesRetentionEvents: entries, changesRetentionSeconds: seconds } = loadConfig(process.env) // the server children get the same environment
  await settlePgliteDirectory(dir, { entries, seconds }, msg => log(`  ${msg}`))
}

const SETTLE_TIMEOUT_MS = 300_000

/** What the server still has to do with the seeded change log: number it, and prune it to the retention. */
const BACKLOG = `SELECT (SELECT count(*)::int FROM ${CHANGE_TABLE} c WHERE ${UNNUMBERED}) AS unnumbered,
  greatest((SELECT head - pruned_through FROM ${CHANGE_STATE}) - $1::bigint, 0)::int AS unpruned`

/** Waits until the server started on `url` has numbered the captured changes and pruned them to its retention. */
export async function waitForChangeLog (url: string): Promise<void> {
  const retention = loadConfig(process.env).changesRetentionEvents // the server children get the same environment
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  try {
    const started = Date.now()
    for (let logged = false; ;) {
      const [{ unnumbered, unpruned }] = await sql.unsafe(BACKLOG, [retention])
      if (unnumbered === 0 && unpruned === 0) return
      const backlog = `${unnumbered as number} captured changes to number and ${unpruned as number} beyond the retention to prune`
      if (!logged) log(`  waiting for the server: ${backlog}`)
      logged = true
      if (Date.now() - started > SETTLE_TIMEOUT_MS) throw new Error(`the server left ${backlog} for ${SETTLE_TIMEOUT_MS / 1000} s`)
      await sleep(200)
    }
  } finally {
    await sql.end()
  }
}
