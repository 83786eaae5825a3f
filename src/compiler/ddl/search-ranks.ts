// The rank table of a model's full-text index: one row per (lexeme, document) where the lexeme
// occurs more than once (or with a weight), holding the document's ts_rank for that lexeme alone,
// in an index ordered by lexeme, then rank (highest first), then _id. A lexeme that occurs once
// has the same rank in every document (SINGLE_OCCURRENCE_RANK, the lowest), so those documents
// tie and follow in the page's own order, which a walk of the primary key gives; most lexemes of
// a text occur once, and a rank table of every lexeme cost creates a fifth of their throughput.
// A one-word search reads its page from the top of the index, then from those ties, instead of
// ranking every match, however many documents hold the word (README, "Full-text search").
// Statement triggers on the model's table keep it, so every write path (a create, a bulk
// import, an update, a purge) goes through them; an update that leaves the text alone costs a
// comparison. Its name carries a digest of the full-text column and of this DDL: a changed
// index or language gets a new table, built from the documents, and the stale one is dropped.
import type { Model } from '../../models/model-definition.ts'
import { fulltextColumn, tableName } from './schema-ddl.ts'
import { quoteIdent } from '../sql-text.ts'
import { shortHash } from '../short-hash.ts'

export const RANKS_PREFIX = 'qr_'

/**
 * The query of one lexeme (the lexeme quoted in tsquery syntax): its ts_rank is the rank a one-word search sorts by.
 */
const lexemeQuery = (lexeme: string): string =>
  `('''' || replace(replace(${lexeme}, '\\', '\\\\'), '''', '''''') || '''')::tsquery`

/** ts_rank of a lexeme that occurs once, unweighted: the lowest rank a match can have. */
export const SINGLE_OCCURRENCE_RANK = "ts_rank('x:1'::tsvector, 'x'::tsquery)"

/**
 * The lexemes `l` of the documents in `rows` (alias n) that occur more than once or with a weight: ranked above
 * SINGLE_OCCURRENCE_RANK.
 */
const rankedLexemes = (rows: string, fts: string): string =>
  `${rows} n, unnest(n.${fts}) l WHERE (cardinality(l.positions) > 1 OR l.weights <> '{D}')`

/** The rank of lexeme `l` in document `n`. */
const rankOf = (fts: string): string => `ts_rank(n.${fts}, ${lexemeQuery('l.lexeme')})`

/** The (lexeme, rank, _id) rows of the documents in `rows`. */
const rankRows = (rows: string, fts: string): string =>
  `SELECT l.lexeme, ${rankOf(fts)}, n._id FROM ${rankedLexemes(rows, fts)}`

/** Rows of `rows` whose text is not the same in `others` (an update's changed documents). */
const changedRows = (rows: string, others: string, fts: string): string =>
  `(SELECT c.* FROM ${rows} c WHERE NOT EXISTS (SELECT 1 FROM ${others} x WHERE x._id = c._id AND x.${fts} = c.${fts}))`

/** Trigger function body: drops the rows of documents whose text went or changed, adds those of new or changed text. */
function keepRanksFunction(ranks: string, fts: string): string {
  const drop = (rows: string): string =>
    `DELETE FROM ${ranks} r USING ${rankedLexemes(rows, fts)} ` +
    `AND r.lexeme = l.lexeme AND r.rank = ${rankOf(fts)} AND r._id = n._id;`
  const add = (rows: string): string => `INSERT INTO ${ranks} (lexeme, rank, _id) ${rankRows(rows, fts)};`
  // Each branch names only the transition tables its event has (a statement is parsed when first run).
  return `BEGIN
  IF TG_OP = 'INSERT' THEN
    ${add('new_rows')}
  ELSIF TG_OP = 'DELETE' THEN
    ${drop('old_rows')}
  ELSE
    ${drop(changedRows('old_rows', 'new_rows', fts))}
    ${add(changedRows('new_rows', 'old_rows', fts))}
  END IF;
  RETURN NULL;
END`
}

export interface SearchRanks {
  /** The rank table's name (also the prefix of its index, trigger function and triggers). */
  name: string
  /** Statements that create it and fill it from the documents already stored, in order. */
  create: string[]
}

const TRIGGER_EVENTS = [
  { suffix: '_insert', event: 'INSERT', transition: 'NEW TABLE AS new_rows' },
  { suffix: '_update', event: 'UPDATE', transition: 'OLD TABLE AS old_rows NEW TABLE AS new_rows' },
  { suffix: '_delete', event: 'DELETE', transition: 'OLD TABLE AS old_rows' }
]

/** The trigger function of a rank table (dropping it drops its triggers). */
export const keepFunction = (ranks: string): string => `${ranks}_keep`

/** The triggers' names for a rank table (how a stale one is found on the model's table). */
export const rankTriggerSuffixes = TRIGGER_EVENTS.map(e => e.suffix)

/** The rank table a model with a full-text index keeps, or undefined. */
export function searchRanks(model: Model): SearchRanks | undefined {
  const column = fulltextColumn(model)
  if (!column) return undefined
  const table = quoteIdent(tableName(model))
  const fts = quoteIdent(column.name)
  const define = (ranks: string): string[] => {
    const fn = quoteIdent(keepFunction(ranks))
    const r = quoteIdent(ranks)
    return [
      `CREATE TABLE ${r} (lexeme text COLLATE "C" NOT NULL, rank real NOT NULL, _id text NOT NULL)`,
      `INSERT INTO ${r} (lexeme, rank, _id) ${rankRows(table, fts)}`,
      `CREATE INDEX ${quoteIdent(`${ranks}_order`)} ON ${r} (lexeme, rank DESC, _id)`,
      `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $body$${keepRanksFunction(r, fts)}$body$`,
      ...TRIGGER_EVENTS.map(
        e =>
          `CREATE TRIGGER ${quoteIdent(ranks + e.suffix)} AFTER ${e.event} ON ${table} ` +
          `REFERENCING ${e.transition} FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`
      ),
      `ANALYZE ${r}`
    ]
  }
  const name = `${RANKS_PREFIX}${model.name.slice(0, 30)}_${shortHash(define('%RANKS%').join(';\n'))}`
  return { name, create: define(name) }
}

/**
 * The one lexeme of a one-word search query `query` (a tsquery expression with numnode 1): its text read back as a
 * tsvector.
 */
export function lexemeOf(query: string): string {
  return `(tsvector_to_array((${query})::text::tsvector))[1]`
}
