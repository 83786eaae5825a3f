// Keeps the numbering of the changes captured before a Quire server ran (the seed's inserts,
// the baseline's creates: tens of thousands of rows) out of the first scenario's requests: on
// PostgreSQL by waiting until the freshly started server has numbered them; on PGlite, whose
// directory one process opens at a time, by numbering them before the server starts.
import postgres from 'postgres'
import { setTimeout as sleep } from 'node:timers/promises'
import { CHANGE_TABLE } from '../src/sql/change-capture-ddl.ts'
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

export async function waitForChangeLog (url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  try {
    const started = Date.now()
    for (let logged = false; ;) {
      const [{ waiting }] = await sql.unsafe(`SELECT count(*)::int AS waiting FROM ${CHANGE_TABLE} c WHERE ${UNNUMBERED}`)
      if (waiting === 0) return
      if (!logged) log(`  waiting for the server to number ${waiting as number} captured changes`)
      logged = true
      if (Date.now() - started > SETTLE_TIMEOUT_MS) throw new Error(`the server left ${waiting as number} changes unnumbered for ${SETTLE_TIMEOUT_MS / 1000} s`)
      await sleep(200)
    }
  } finally {
    await sql.end()
  }
}
