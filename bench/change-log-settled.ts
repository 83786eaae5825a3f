// Keeps the server's one-time work on a freshly seeded database out of the scenarios: the
// numbering of the changes captured before it ran (the seed's inserts, the baseline's creates:
// tens of thousands of rows) and their pruning to its retention (at 1,000,000 documents, 900,000
// entries). The bench waits, after starting a Quire server, until that server has done both (on
// both engines: the embedded default is a PostgreSQL server like any other). seed-database.ts
// VACUUMs the seed for the same reason.
import { setTimeout as sleep } from 'node:timers/promises'
import { CHANGE_STATE, CHANGE_TABLE } from '../src/compiler/ddl/change-capture-ddl.ts'
import { loadConfig } from '../src/config.ts'
import { UNNUMBERED } from '../src/storage/sql/changes/sql-change-sequencer.ts'
import { log } from './report.ts'
import { connectSql } from './sql-connection.ts'

const SETTLE_TIMEOUT_MS = 300_000

/** What the server still has to do with the seeded change log: number it, and prune it to the retention. */
const BACKLOG = `SELECT (SELECT count(*)::int FROM ${CHANGE_TABLE} c WHERE ${UNNUMBERED}) AS unnumbered,
  greatest((SELECT head - pruned_through FROM ${CHANGE_STATE}) - $1::bigint, 0)::int AS unpruned`

/** Waits until the server started on `url` has numbered the captured changes and pruned them to its retention. */
export async function waitForChangeLog(url: string): Promise<void> {
  const retention = loadConfig(process.env).changesRetentionEvents // the server children get the same environment
  const sql = connectSql(url, { max: 1 })
  try {
    const started = Date.now()
    for (let logged = false; ; ) {
      const [{ unnumbered, unpruned }] = await sql.unsafe(BACKLOG, [retention])
      if (unnumbered === 0 && unpruned === 0) return
      const backlog =
        `${unnumbered as number} captured changes to number and ${unpruned as number} beyond the retention ` +
        `to prune`
      if (!logged) log(`  waiting for the server: ${backlog}`)
      logged = true
      if (Date.now() - started > SETTLE_TIMEOUT_MS)
        throw new Error(`the server left ${backlog} for ${SETTLE_TIMEOUT_MS / 1000} s`)
      await sleep(200)
    }
  } finally {
    await sql.end()
  }
}
