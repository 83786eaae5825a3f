// Brings one model's table, generated columns (full-text, covering), indexes and search rank table in line with its
// definition: creates what is missing, drops what is stale, logs what it builds.
// Tables also get the planner statistics that every list's soft-delete filter relies on.
import type { Model } from '../../../models/model-definition.ts'
import type { SqlClient } from '../sql-client.ts'
import {
  TABLE_STORAGE,
  createTableSql,
  deletedStatistics,
  fulltextColumn,
  indexDefinitions,
  tableName
} from '../../../compiler/ddl/schema-ddl.ts'
import { quoteIdent } from '../../../compiler/sql-text.ts'
import { withBuildProgress } from './index-build-progress.ts'
import { syncSearchRanks } from './sync-search-ranks.ts'
import { COVERING_PREFIX, coveringColumns, type GeneratedColumn } from '../../../compiler/ddl/covering-columns.ts'

/** The generated columns a model wants: its full-text column and its covering indexes' columns. */
function wantedColumns(model: Model): GeneratedColumn[] {
  const fts = fulltextColumn(model)
  return [...(fts ? [{ name: fts.name, sql: fts.sql }] : []), ...coveringColumns(model)]
}

/** Drops stale generated columns and adds missing ones, all in one statement each (adding rewrites the table once). */
async function syncGeneratedColumns(
  tx: SqlClient,
  model: Model,
  log: (msg: string) => void,
  monitor?: SqlClient
): Promise<void> {
  const table = quoteIdent(tableName(model))
  const wanted = wantedColumns(model)
  const rows = (await tx.query(
    'SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND ' +
      "table_name = $1 AND (column_name LIKE 'fts\\_%' OR column_name LIKE $2)",
    [tableName(model), `${COVERING_PREFIX.replace('_', '\\_')}%`]
  )) as Array<{ name: string }>
  const stale = rows.filter(row => !wanted.some(column => column.name === row.name))
  if (stale.length > 0)
    await tx.exec(`ALTER TABLE ${table} ${stale.map(row => `DROP COLUMN ${quoteIdent(row.name)}`).join(', ')}`)
  const missing = wanted.filter(column => !rows.some(row => row.name === column.name))
  if (missing.length === 0) return
  const label =
    `building generated column${missing.length > 1 ? 's' : ''} ${missing.map(c => c.name).join(', ')} ` +
    `on ${tableName(model)}`
  log(label)
  await withBuildProgress(monitor, table, label, log, () =>
    tx.exec(
      `ALTER TABLE ${table} ${missing.map(column => `ADD COLUMN ${quoteIdent(column.name)} ${column.sql}`).join(', ')}`
    )
  )
}

async function syncIndexes(
  tx: SqlClient,
  model: Model,
  log: (msg: string) => void,
  monitor?: SqlClient
): Promise<void> {
  const table = tableName(model)
  const wanted = indexDefinitions(model)
  const rows = (await tx.query(
    'SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1 AND ' +
      "indexname LIKE 'qx\\_%'",
    [table]
  )) as Array<{ name: string }>
  const existing = new Set(rows.map(r => r.name))
  for (const name of existing) {
    if (!wanted.some(w => w.name === name)) await tx.exec(`DROP INDEX ${quoteIdent(name)}`)
  }
  for (const index of wanted) {
    if (existing.has(index.name)) continue
    const label = `building index ${index.name} on ${table}`
    log(label)
    await withBuildProgress(monitor, quoteIdent(table), label, log, () => tx.exec(index.sql))
  }
}

/** Creates the soft-delete statistics when missing (gathering them at once for existing rows); drops stale ones. */
async function syncStatistics(tx: SqlClient, model: Model, log: (msg: string) => void): Promise<void> {
  const wanted = deletedStatistics(model)
  const rows = (await tx.query(
    "SELECT stxname AS name FROM pg_statistic_ext WHERE stxrelid = to_regclass($1) AND stxname LIKE 'qs\\_%'",
    [quoteIdent(tableName(model))]
  )) as Array<{ name: string }>
  for (const { name } of rows) {
    if (name !== wanted.name) await tx.exec(`DROP STATISTICS ${quoteIdent(name)}`)
  }
  if (rows.some(r => r.name === wanted.name)) return
  log(`gathering planner statistics on ${tableName(model)}`)
  await tx.exec(wanted.sql)
  await tx.exec(`ANALYZE ${quoteIdent(tableName(model))}`)
}

/** Sets TABLE_STORAGE on a table created before it (documents written from then on are stored that way). */
async function syncStorageParameters(tx: SqlClient, model: Model): Promise<void> {
  const table = quoteIdent(tableName(model))
  const rows = (await tx.query('SELECT reloptions FROM pg_class WHERE oid = to_regclass($1)', [table])) as Array<{
    reloptions: string[] | null
  }>
  if (rows[0]?.reloptions?.includes(TABLE_STORAGE)) return
  await tx.exec(`ALTER TABLE ${table} SET (${TABLE_STORAGE})`)
}

/**
 * Creates or updates the storage of one model; runs inside the caller's transaction. `monitor`, a
 * client outside that transaction (PostgreSQL only), reads the progress of index builds; other long
 * steps log the time they have taken so far.
 */
export async function syncModelSchema(
  tx: SqlClient,
  model: Model,
  log: (msg: string) => void,
  monitor?: SqlClient
): Promise<void> {
  await tx.exec(createTableSql(model))
  await syncStorageParameters(tx, model)
  await syncGeneratedColumns(tx, model, log, monitor)
  await syncIndexes(tx, model, log, monitor)
  await syncStatistics(tx, model, log)
  await syncSearchRanks(tx, model, log, monitor)
}
