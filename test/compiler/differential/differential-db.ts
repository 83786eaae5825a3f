// Loads the generated documents into a database and runs compiled statements on it, for the
// filter differential test (test/compiler/differential/filter-differential.test.ts, on a throwaway PostgreSQL server).
import type { SqlValue } from '../../../src/compiler/sql-text.ts'

export type Query = (text: string, values: SqlValue[]) => Promise<Array<Record<string, unknown>>>
export interface Statement {
  text: string
  values: SqlValue[]
  sorted: boolean
}
/** The ids a statement selected (in id order unless the statement sorts), or its error text. */
export type Outcome = string[] | string

/**
 * The table with the GIN index every model's table has (src/compiler/ddl/schema-ddl.ts). The runner turns
 * sequential scans off, so that the conditions the index serves are answered through it: an
 * equality the index extracted wrongly would miss documents.
 */
export async function loadDocuments(query: Query, docs: unknown[]): Promise<void> {
  await query('CREATE TABLE docs (_id text PRIMARY KEY, doc jsonb NOT NULL)', [])
  await query("INSERT INTO docs SELECT d->>'_id', d FROM jsonb_array_elements($1::text::jsonb) AS d", [
    JSON.stringify(docs)
  ])
  await query('CREATE INDEX docs_gin ON docs USING gin (doc jsonb_path_ops)', [])
  await query('ANALYZE docs', [])
}

/** Session settings of the runner: index scans wherever an index applies. */
export const INDEX_SCANS = { enable_seqscan: 'off' }

export async function selectIds(query: Query, statement: Statement): Promise<Outcome> {
  try {
    const ids = (await query(statement.text, statement.values)).map(row => row._id as string)
    return statement.sorted ? ids : ids.sort()
  } catch (err) {
    return `SQL error: ${(err as Error).message}`
  }
}
