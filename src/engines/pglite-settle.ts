// After a bulk load into a PGlite directory (`quire import`, the bench's seed): does at once what
// the next server would otherwise do in its first minute, when every request waits for it (PGlite
// has one connection). It numbers the captured changes, prunes them to the retention, and runs the
// housekeeping's pass, which VACUUMs the loaded tables and the pruned change log (120,000 captured
// changes: 0.8 s for the log alone, during which a server would answer nobody).
import { openPglite } from './pglite-client.ts'
import { createChangeSequencer } from './sql-change-sequencer.ts'
import { createSqlChangeLog } from './sql-change-log.ts'
import type { ChangeLogRetention } from './change-log.ts'
import { tidyTables } from './pglite-housekeeping.ts'

/** Captured changes numbered between two progress lines. */
const PROGRESS_EVERY = 20_000

const seconds = (since: number): string => ((Date.now() - since) / 1000).toFixed(1)

/** Settles the PGlite directory `dir`, which no other process may have open; `log` reports each step. */
export async function settlePgliteDirectory (dir: string, retention: ChangeLogRetention, log: (msg: string) => void): Promise<void> {
  const client = await openPglite(dir)
  try {
    const started = Date.now()
    let numbered = 0
    await createChangeSequencer(client).sequenceAll(false, changes => {
      numbered += changes.length
      if (numbered % PROGRESS_EVERY < changes.length) log(`numbered ${numbered} captured changes`)
    })
    log(`numbered the captured changes in ${seconds(started)} s`)
    const pruneStarted = Date.now()
    const changeLog = createSqlChangeLog(client, log)
    const pruned = await changeLog.prune(retention)
    await changeLog.close()
    log(`pruned ${pruned} changes beyond the retention in ${seconds(pruneStarted)} s`)
    const tidyStarted = Date.now()
    const tidied = await tidyTables(client)
    log(`vacuumed ${tidied.join(', ') || 'no table'} in ${seconds(tidyStarted)} s`)
  } finally {
    await client.close()
  }
}
