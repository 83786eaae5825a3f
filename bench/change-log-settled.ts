// Keeps the server's one-time work on a freshly seeded database out of the scenarios: the
// numbering of the changes captured before it ran (the seed's inserts, the baseline's creates:
// tens of thousands of rows) and their pruning to its retention (at 1,000,000 documents, 900,000
// entries). On PostgreSQL by waiting until the freshly started server has done both; on PGlite,
// whose directory one process opens at a time, by doing both with the server's code before it
// starts, and then what its housekeeping does a minute later: VACUUMing the seeded tables and the
// change log the prune left dead rows in (120,000 seeded changes: 0.8 s, during which PGlite
// answers nobody; it was the p99 of whichever scenario ran then). run.ts VACUUMs PostgreSQL's seed
// for the same reason.
import postgres from 'postgres'
import { setTimeout as sleep } from 'node:timers/promises'
import { CHANGE_STATE, CHANGE_TABLE } from '../src/sql/change-capture-ddl.ts'
import { loadConfig } from '../src/config.ts'
import { openPglite } from '../src/engines/pglite-client.ts'
import { UNNUMBERED, createChangeSequencer } from '../src/engines/sql-change-sequencer.ts'
import { createSqlChangeLog } from '../src/engines/sql-change-log.ts'
import { tidyTables } from '../src/engines/pglite-housekeeping.ts'
import { log } from './report.ts'

const seconds = (since: number): string => ((Date.now() - since) / 1000).toFixed(1)

/** Numbers and prunes the captured changes of the PGlite directory `dir` (no server may have it open), then VACUUMs the tables due for it. */
export async function settlePgliteDirectory (dir: string): Promise<void> {
  const client = await openPglite(dir)
  try {
    const started = Date.now()
    let numbered = 0
    await createChangeSequencer(client).sequenceAll(false, changes => {
      numbered += changes.length
      if (numbered % 20_000 < changes.length) log(`  numbered ${numbered} captured changes`)
    })
    log(`  numbered the captured changes in ${seconds(started)} s`)
    const { changesRetentionEvents: entries, changesRetentionSeconds } = loadConfig(process.env) // the server children get the same environment
    const pruneStarted = Date.now()
    const changeLog = createSqlChangeLog(client, log)
    const pruned = await changeLog.prune({ entries, seconds: changesRetentionSeconds })
    await changeLog.close()
    log(`  pruned ${pruned} changes beyond the retention in ${seconds(pruneStarted)} s`)
    const tidyStarted = Date.now()
    const tidied = await tidyTables(client)
    log(`  vacuumed ${tidied.join(', ') || 'no table'} in ${seconds(tidyStarted)} s (PGlite's housekeeping)`)
  } finally {
    await client.close()
  }
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
