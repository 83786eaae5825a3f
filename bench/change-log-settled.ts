// Keeps the numbering of the changes captured before a Quire server ran (the seed's inserts,
// the baseline's creates: tens of thousands of rows) out of the first scenario's requests: on
// PostgreSQL by waiting until the freshly started server has numbered them (and pruned them to
// its retention: at 1,000,000 documents, 900,000 entries); on PGlite, whose directory one
// process opens at a time, by numbering them before the server starts.
import postgres from 'postgres'
import { setTimeout as sleep } from 'node:timers/promises'
import { CHANGE_STATE, CHANGE_TABLE } from '../src/sql/change-capture-ddl.ts'
import { loadConfig } from '../src/config.ts'
import { openPglite } from '../src/engines/pglite-client.ts'
import { UNNUMBERED, createChangeSequencer } from '../src/engines/sql-change-sequencer.ts'
import { log } from './report.ts'

/** Numbers every captured change of the PGlite directory `dir` (no server may have it open). */
export async function numberPgliteChangeLog (dir: string): Promise<void> {
  const client = await openPglite(dir)
  try {
    const started = Date.now()
    let numbered = 0
    await createChangeSequencer(client).sequenceAll(false, changes => {
      numbered += changes.length
      if (numbered % 20_000 < changes.length) log(`  numbered ${numbered} captured changes`)
    })
    log(`  numbered the captured changes in ${((Date.now() - started) / 1000).toFixed(1)} s`)
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
