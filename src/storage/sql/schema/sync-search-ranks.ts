// Brings a model's rank table (src/compiler/ddl/search-ranks.ts) in line with its full-text index: builds
// it from the stored documents when missing (logging the time it takes) and drops a stale one,
// found by its triggers on the model's table. An up-to-date database is only read.
import type { Model } from '../../../models/model-definition.ts'
import type { SqlClient } from '../sql-client.ts'
import { tableName } from '../../../compiler/ddl/schema-ddl.ts'
import { quoteIdent } from '../../../compiler/sql-text.ts'
import { withBuildProgress } from './index-build-progress.ts'
import { RANKS_PREFIX, keepFunction, rankTriggerSuffixes, searchRanks } from '../../../compiler/ddl/search-ranks.ts'

const INSERT_TRIGGER = rankTriggerSuffixes[0]

export async function syncSearchRanks(
  tx: SqlClient,
  model: Model,
  log: (msg: string) => void,
  monitor?: SqlClient
): Promise<void> {
  const table = tableName(model)
  const wanted = searchRanks(model)
  const rows = (await tx.query(
    'SELECT tgname AS name FROM pg_trigger WHERE tgrelid = to_regclass($1) AND starts_with(tgname, $2) ' +
      'AND right(tgname, $3) = $4',
    [quoteIdent(table), RANKS_PREFIX, INSERT_TRIGGER.length, INSERT_TRIGGER]
  )) as Array<{ name: string }>
  const existing = rows.map(row => row.name.slice(0, -INSERT_TRIGGER.length))
  for (const stale of existing.filter(name => name !== wanted?.name)) {
    await tx.exec(`DROP FUNCTION IF EXISTS ${quoteIdent(keepFunction(stale))}() CASCADE`)
    await tx.exec(`DROP TABLE IF EXISTS ${quoteIdent(stale)}`)
  }
  if (!wanted || existing.includes(wanted.name)) return
  const label = `building search ranks ${wanted.name} for ${table}`
  log(label)
  await withBuildProgress(monitor, quoteIdent(wanted.name), label, log, async () => {
    for (const statement of wanted.create) await tx.exec(statement)
  })
}
