// DDL for a model: its table, its indexes and its full-text column. Names are
// derived from a hash of each definition, so a changed definition gets a new
// index and the stale one is dropped: syncing is idempotent on every start.
import type { Model } from '../../models/model-definition.ts'
import { fieldKindLookup } from '../../models/field-kinds.ts'
import { indexExpression } from '../filter/compile-filter.ts'
import { quoteIdent, quoteLiteral, jsonPathExpr } from '../sql-text.ts'
import { shortHash } from '../short-hash.ts'
import { coveringIndexBodies } from './covering-columns.ts'

const INDEX_PREFIX = 'qx_'
const STATISTICS_PREFIX = 'qs_'

/** `prefix` + the model's name + a hash of the definition: a changed definition gets a new name. */
function definitionName(prefix: string, model: Model, definition: string): string {
  return `${prefix}${model.name.slice(0, 30)}_${shortHash(definition)}`
}

export function tableName(model: Model | string): string {
  return `q_${typeof model === 'string' ? model : model.name}`
}

export interface IndexDefinition {
  name: string
  sql: string
}

/**
 * The indexes a model wants, each with a name unique to its definition: the declared ones, a
 * covering index for each declared one with `include` (src/compiler/ddl/covering-columns.ts), the
 * full-text index, and one GIN index (jsonb_path_ops) over the whole document, which serves
 * equality on every field without an index of its own (src/compiler/filter/compile-comparison.ts).
 * A non-unique index ends with `_id`, the tiebreaker of every sort: with its fields fixed by equality, the index then
 * yields rows in page order, so a filtered list stops after `limit` rows instead of sorting every
 * match (300,000 documents, 3,000 matches: 12 ms -> 0.14 ms).
 */
export function indexDefinitions(model: Model): IndexDefinition[] {
  const table = tableName(model)
  const kindOf = fieldKindLookup(model)
  const defs = model.indexes.map(index => {
    const keys = index.fields.map(f => `(${indexExpression('doc', f, kindOf(f))}) NULLS FIRST`)
    const columns = (index.unique ? keys : [...keys, '_id']).join(', ')
    const unique = index.unique ? 'UNIQUE ' : ''
    const body = `${unique}INDEX %NAME% ON ${quoteIdent(table)} (${columns})`
    return { body, name: definitionName(INDEX_PREFIX, model, body) }
  })
  for (const body of coveringIndexBodies(model, table))
    defs.push({ body, name: definitionName(INDEX_PREFIX, model, body) })
  const fts = fulltextColumn(model)
  if (fts) {
    const body = `INDEX %NAME% ON ${quoteIdent(table)} USING gin (${quoteIdent(fts.name)})`
    defs.push({ body, name: definitionName(INDEX_PREFIX, model, body) })
  }
  const documents = `INDEX %NAME% ON ${quoteIdent(table)} USING gin (doc jsonb_path_ops)`
  defs.push({ body: documents, name: definitionName(INDEX_PREFIX, model, documents) })
  return defs.map(d => ({ name: d.name, sql: `CREATE ${d.body.replace('%NAME%', quoteIdent(d.name))}` }))
}

/**
 * Extended statistics on the soft-delete flag, which every list filters on. Without them the
 * planner guesses that `_deleted = false` keeps 0.5% of the rows, and so prefers sorting all of a
 * filter's matches to walking an index in page order and stopping after `limit` rows.
 */
export function deletedStatistics(model: Model): { name: string; sql: string } {
  const expr = indexExpression('doc', '_deleted', fieldKindLookup(model)('_deleted'))
  const body = `ON (${expr}) FROM ${quoteIdent(tableName(model))}`
  const name = definitionName(STATISTICS_PREFIX, model, body)
  return { name, sql: `CREATE STATISTICS IF NOT EXISTS ${quoteIdent(name)} ${body}` }
}

/** The generated tsvector column of a model's full-text index, or undefined. */
export function fulltextColumn(model: Model): { name: string; language: string; sql: string } | undefined {
  if (!model.fulltext) return undefined
  const { fields, language } = model.fulltext
  const text = fields
    .map(f => `coalesce(${jsonPathExpr('doc', f).replace(/->('[^']*')$/, '->>$1')}, '')`)
    .join(` || ' ' || `)
  const expr = `to_tsvector(${quoteLiteral(language)}::regconfig, ${text})`
  const name = `fts_${shortHash(expr)}`
  return { name, language, sql: `tsvector GENERATED ALWAYS AS (${expr}) STORED` }
}

/**
 * Storage parameters of every model table. PostgreSQL compresses a row's documents (pglz) once
 * the row passes about 2 KB, which a 1 KB document with its full-text column does, and then
 * decompresses the document again for every expression that reads it: a filter on a field
 * without an index, an aggregation's fields, every projected row. Rows up to a page (8,160
 * bytes) stay uncompressed (the bench's test documents: 1.6x the disk, a third of the CPU per
 * row read); larger ones are still compressed and moved out of line as before.
 */
export const TABLE_STORAGE = 'toast_tuple_target=8160'

export function createTableSql(model: Model): string {
  return (
    `CREATE TABLE IF NOT EXISTS ${quoteIdent(tableName(model))} (_id text PRIMARY KEY, doc jsonb NOT NULL) ` +
    `WITH (${TABLE_STORAGE})`
  )
}
