// Installs change capture (src/compiler/ddl/change-capture-ddl.ts) on start, touching only what
// is missing or stale. Each piece carries a comment with a digest of its definition;
// an up-to-date database is only read. Re-running the DDL on every start took locks
// (on the change log, on each model's table) that deadlocked with another process's
// writes, whose triggers take the same locks in the other order.
import type { Model } from '../../../models/model-definition.ts'
import type { SqlClient } from '../sql-client.ts'
import { CHANGE_LOG_DDL, captureTriggerSql } from '../../../compiler/ddl/change-capture-ddl.ts'
import { quoteIdent, quoteLiteral } from '../../../compiler/sql-text.ts'
import { tableName } from '../../../compiler/ddl/schema-ddl.ts'
import { shortHash } from '../../../compiler/short-hash.ts'

const LOG_VERSION = shortHash(CHANGE_LOG_DDL)

async function syncChangeLog(tx: SqlClient): Promise<void> {
  const [row] = await tx.query("SELECT obj_description(to_regprocedure('quire_capture_change()'), 'pg_proc') AS v")
  if (row?.v === LOG_VERSION) return
  await tx.exec(CHANGE_LOG_DDL)
  await tx.exec(`COMMENT ON FUNCTION quire_capture_change() IS ${quoteLiteral(LOG_VERSION)}`)
}

async function syncCaptureTrigger(tx: SqlClient, model: Model): Promise<void> {
  const table = quoteIdent(tableName(model))
  const wanted = captureTriggerSql(model)
  const version = shortHash(wanted)
  const [row] = await tx.query(
    "SELECT obj_description(oid, 'pg_trigger') AS v FROM pg_trigger WHERE tgrelid = to_regclass($1) AND " +
      "tgname = 'quire_capture'",
    [table]
  )
  if (row?.v === version) return
  await tx.exec(wanted)
  await tx.exec(`COMMENT ON TRIGGER quire_capture ON ${table} IS ${quoteLiteral(version)}`)
}

/** The change log, its capture function and every model's capture trigger, created or brought up to date. */
export async function syncChangeCapture(tx: SqlClient, models: Iterable<Model>): Promise<void> {
  await syncChangeLog(tx)
  for (const model of models) await syncCaptureTrigger(tx, model)
}
