// Compiles a FindQuery into one SQL statement: filter, full-text search, sort,
// projection, populate (correlated subqueries) and paging, plus the exact count
// in the same round trip when it is asked for. The sort is compiled here too, in MongoDB's order
// across types, ending with the id column so that equal keys still page deterministically (the id
// follows the last key's direction: an index on (key, _id) read backwards serves `-key` too).
import type { FindQuery, PopulateSpec } from '../../storage/engine.ts'
import type { Model } from '../../models/model-definition.ts'
import { fieldKindLookup } from '../../models/field-kinds.ts'
import type { Filter, Sort } from '../../query/types.ts'
import { compileFilter } from '../filter/compile-filter.ts'
import { containmentLookup } from '../filter/compile-comparison.ts'
import type { FilterContext } from '../filter/compile-filter.ts'
import { scalarField, valueExpr } from '../filter/index-expression.ts'
import { fieldPath, jsonpathLiteral } from '../json-path.ts'
import { parseFieldPath } from '../../validation/field-path.ts'
import { compileProjection } from './compile-projection.ts'
import { jsonPathExpr, quoteIdent, quoteLiteral, SqlParams, type SqlValue } from '../sql-text.ts'
import { fulltextColumn, tableName } from '../ddl/schema-ddl.ts'
import { prefixWalkSource } from './prefix-walk.ts'
import { SINGLE_OCCURRENCE_RANK, lexemeOf, searchRanks } from '../ddl/search-ranks.ts'
import { QuireError } from '../../errors.ts'
import { hiddenFields } from '../../permissions/field-policy.ts'

export interface CompiledSql {
  text: string
  values: SqlValue[]
  planForValues?: boolean
  /**
   * A cheaper statement to run first (src/compiler/find/prefix-walk.ts): when it returns `limit` rows, they are the
   * page.
   */
  firstTry?: { text: string; values: SqlValue[] }
}

/** A statement and, when there is one, the text of its first try, with the same values. */
type CompiledWithWalk = Omit<CompiledSql, 'firstTry'> & { firstTry?: string }

/**
 * What a page reads of a row of the model's table `t`: filters, sorts and projections use no other
 * column, and reading the whole row (its generated columns too) cost a prefix walk 30% more.
 */
const DOCUMENT_COLUMNS = 't._id, t.doc'

/** WHERE condition for `filter` on alias `t`; a string `_id` goes to the primary key column instead. */
export function compileWhere(model: Model, filter: Filter, params: SqlParams, alias = 't'): string {
  const ctx = { params, doc: `${alias}.doc`, kindOf: fieldKindLookup(model), containment: containmentLookup(model) }
  if (typeof filter._id !== 'string') return compileFilter(filter, ctx)
  const { _id: id, ...rest } = filter
  const condition = compileFilter(rest, ctx)
  return `${alias}._id = ${params.add(id as string)} AND ${condition}`
}

/** Paging as literals (validated integers): PostgreSQL then reuses one generic plan per statement text. */
function pageClause(query: FindQuery, order: string): string {
  if (!Number.isSafeInteger(query.limit) || !Number.isSafeInteger(query.skip) || query.limit < 0 || query.skip < 0) {
    throw new QuireError('BAD_REQUEST', 'limit and page must be whole numbers')
  }
  if (typeof query.filter._id === 'string' && query.skip === 0 && query.search === undefined) return 'LIMIT 1'
  return `ORDER BY ${order} LIMIT ${query.limit} OFFSET ${query.skip}`
}

function populateExpr(spec: PopulateSpec, params: SqlParams, depth: number): string {
  const alias = `p${depth}`
  const table = quoteIdent(tableName(spec.target))
  const proj = compileProjection(spec.fields, { params, doc: `${alias}.doc` }, { exclude: hiddenFields(spec.target) })
  const where = compileWhere(spec.target, spec.filter, params, alias)
  if (!spec.many) {
    return (
      `(SELECT ${proj} FROM ${table} ${alias} WHERE ${alias}._id = (t.doc->>${quoteLiteral(spec.field)}) ` +
      `AND ${where})`
    )
  }
  const link = jsonPathExpr('t.doc', spec.field)
  const ids = `CASE WHEN jsonb_typeof(${link}) = 'array' THEN ${link} ELSE '[]'::jsonb END`
  return (
    `(SELECT coalesce(jsonb_agg(${proj} ORDER BY a.ord), '[]'::jsonb) FROM ` +
    `jsonb_array_elements_text(${ids}) WITH ORDINALITY a(id, ord) ` +
    `JOIN ${table} ${alias} ON ${alias}._id = a.id WHERE ${where})`
  )
}

/** The jsonb expression of one result row: projection, populated links and the search score. */
function rowExpr(model: Model, query: FindQuery, params: SqlParams, score?: string): string {
  let expr = compileProjection(query.fields, { params, doc: 't.doc' }, { exclude: hiddenFields(model) })
  const extras = query.populate.map((spec, i) => `${quoteLiteral(spec.as)}, ${populateExpr(spec, params, i)}`)
  if (score) extras.push(`'score', ${score}`)
  if (extras.length) expr = `(${expr}) || jsonb_build_object(${extras.join(', ')})`
  return expr
}

interface SearchParts {
  /** The columns a row of the model's table is read with: the document and its text-search column. */
  columns: string
  /** The condition on the model's table. */
  where: string
  /** The rank of a row of the model's table. */
  score: string
  /** The search's tsquery. */
  query: string
}

function searchParts(model: Model, text: string, params: SqlParams): SearchParts {
  const fts = fulltextColumn(model)
  if (!fts) throw new Error(`search on ${model.name}, which has no full-text index`)
  const query = `websearch_to_tsquery(${quoteLiteral(fts.language)}::regconfig, ${params.add(text)})`
  const column = `t.${quoteIdent(fts.name)}`
  return {
    columns: `${DOCUMENT_COLUMNS}, ${column}`,
    where: `${column} @@ ${query}`,
    score: `ts_rank(${column}, ${query})`,
    query
  }
}

/**
 * How many matches a page of a search that is not one word (several words, a phrase, a negation)
 * ranks at most: such a query matching up to this many documents gets its true top; above it, the
 * page ranks the first this many matches found in storage order (roughly the oldest documents),
 * so that common words cost what 10,000 matches cost instead of growing with the collection.
 * One-word searches are exact at any size (the rank table: oneWordRows); exports rank every
 * match (README, "Full-text search").
 */
export const SEARCH_CANDIDATES = 10_000

export interface FindOptions {
  /** Only documents whose _id sorts after it, on the primary key (a keyset read in _id order). */
  afterId?: string
  /** Rank every match of a search (exports), not at most SEARCH_CANDIDATES. */
  rankAll?: boolean
}

/** The rank column the search pages below give each row of their page. */
const RANK = 't.quire_rank'

/**
 * A search's page from the matches of its query (`where` includes the text condition), the
 * first SEARCH_CANDIDATES in storage order unless `rankAll`.
 */
function rankedMatchesPage(
  table: string,
  where: string,
  search: SearchParts,
  sortOrder: string,
  query: FindQuery,
  rankAll: boolean
): string {
  const matches = `${table} t WHERE ${where}`
  const source = rankAll ? matches : `(SELECT ${search.columns} FROM ${matches} LIMIT ${SEARCH_CANDIDATES}) t`
  return (
    `SELECT ${search.columns}, ${search.score} AS quire_rank ` +
    `FROM ${source} ${pageClause(query, `${search.score} DESC, ${sortOrder}`)}`
  )
}

/**
 * How much further than a filter's (src/compiler/find/prefix-walk.ts) a one-word search walks for the documents holding
 * the word once.
 */
const ONCE_WALK_SCALE = 5

/**
 * A one-word search's page: the documents holding the word more than once, read from the model's
 * rank table (src/compiler/ddl/search-ranks.ts) in rank order, then those holding it once (all ranked
 * SINGLE_OCCURRENCE_RANK) in the page's own order: the true top however many documents hold the
 * word. `where` is the rest of the filter. When `walked`, the second part looks only at the first
 * documents in _id order (a first try: undefined unless the page is in _id order).
 */
function oneWordRows(
  table: string,
  ranks: string,
  where: string,
  search: SearchParts,
  sortOrder: string,
  query: FindQuery,
  walked: boolean
): string | undefined {
  const page = pageClause(query, `t.quire_rank DESC, ${sortOrder}`)
  // Each part stops at the page's end, read in its own order (the rank table's index; the page's
  // order), and only their rows are sorted together.
  const end = `LIMIT ${query.skip + query.limit}`
  const oneWord = `numnode(${search.query}) = 1`
  const word = `CASE WHEN ${oneWord} THEN ${lexemeOf(search.query)} END`
  const repeated =
    `SELECT ${search.columns}, r.rank AS quire_rank FROM ${quoteIdent(ranks)} r JOIN ${table} t ON t._id = r._id ` +
    `WHERE ${oneWord} AND r.lexeme = ${word} AND ${where} ORDER BY r.rank DESC, ${sortOrder} ${end}`
  const onceWhere = `${oneWord} AND ${search.where} AND ${search.score} <= ${SINGLE_OCCURRENCE_RANK} AND ${where}`
  // Unwalked, every such match is read (through the full-text index) and sorted: a walk of the
  // primary key in page order would find few of a rare word's matches before the table's end.
  const source = walked
    ? prefixWalkSource(table, search.columns, onceWhere, sortOrder, query, ONCE_WALK_SCALE)
    : `(SELECT ${search.columns} FROM ${table} t WHERE ${onceWhere} OFFSET 0) t`
  if (source === undefined) return undefined
  const once =
    `SELECT ${search.columns}, ${SINGLE_OCCURRENCE_RANK} AS quire_rank FROM ${source} ` + `ORDER BY ${sortOrder} ${end}`
  return `SELECT t.* FROM ((${repeated}) UNION ALL (${once})) t ${page}`
}

/**
 * One statement answering a FindQuery. Each row has `d` (a document as JSON text, or null on an
 * empty page) and, when the count is asked for, `total` (the same on every row: all matches).
 */
export function compileFind(model: Model, query: FindQuery, options: FindOptions = {}): CompiledSql {
  const { firstTry, ...compiled } = compileFindWith(new SqlParams(), model, query, options)
  if (firstTry === undefined) return compiled
  // The first try runs prepared, with a generic plan: compiled again, its JSON values cast once per
  // execution rather than for every document walked (SqlParamsOptions.castJsonOnce).
  const walk = compileFindWith(new SqlParams({ castJsonOnce: true }), model, query, options)
  return { ...compiled, firstTry: { text: walk.firstTry!, values: walk.values } }
}

function compileFindWith(params: SqlParams, model: Model, query: FindQuery, options: FindOptions): CompiledWithWalk {
  const table = quoteIdent(tableName(model))
  let where = compileWhere(model, query.filter, params)
  if (options.afterId !== undefined) where = `t._id > ${params.add(options.afterId)} AND ${where}`
  const sortOrder = compileSort(query.sort, { params, doc: 't.doc', idColumn: 't._id', kindOf: fieldKindLookup(model) })
  const search = query.search === undefined ? undefined : searchParts(model, query.search, params)
  const row = rowExpr(model, query, params, search && RANK)
  const matchWhere = search ? `${search.where} AND ${where}` : where
  // The page's rows are chosen first and only they are projected and populated: PostgreSQL would
  // otherwise build the JSON text of every matching row before sorting (331 ms for 10k matches).
  const pageFrom = (rows: string, reorder: string): string => `SELECT (${row})::text AS d FROM (${rows}) t ${reorder}`
  let page: string
  let firstTry: string | undefined
  if (search) {
    const order = `ORDER BY ${RANK} DESC, ${sortOrder}`
    const ranks = options.rankAll !== true && options.afterId === undefined ? searchRanks(model)?.name : undefined
    if (ranks === undefined) {
      page = pageFrom(rankedMatchesPage(table, matchWhere, search, sortOrder, query, options.rankAll === true), order)
    } else {
      // Both branches are planned; the one whose numnode test is false is never run.
      const others = rankedMatchesPage(
        table,
        `numnode(${search.query}) <> 1 AND ${matchWhere}`,
        search,
        sortOrder,
        query,
        false
      )
      page =
        `(${pageFrom(oneWordRows(table, ranks, where, search, sortOrder, query, false)!, order)}) UNION ALL ` +
        `(${pageFrom(others, order)})`
      const walked = oneWordRows(table, ranks, where, search, sortOrder, query, true)
      firstTry = walked === undefined ? undefined : pageFrom(walked, order)
    }
  } else {
    const clause = pageClause(query, sortOrder)
    const reorder = clause.startsWith('ORDER BY') ? `ORDER BY ${sortOrder}` : ''
    page = pageFrom(`SELECT ${DOCUMENT_COLUMNS} FROM ${table} t WHERE ${where} ${clause}`, reorder)
    const walk =
      params.planForValues && options.afterId === undefined && clause.startsWith('ORDER BY')
        ? prefixWalkSource(table, DOCUMENT_COLUMNS, where, sortOrder, query)
        : undefined
    firstTry = walk === undefined ? undefined : pageFrom(`SELECT ${DOCUMENT_COLUMNS} FROM ${walk} ${clause}`, reorder)
  }
  if (!query.count) return { text: page, values: params.values, planForValues: params.planForValues, firstTry }
  const text =
    `SELECT c.total, p.d FROM (SELECT count(*) AS total FROM ${table} t WHERE ${matchWhere}) c ` +
    `LEFT JOIN LATERAL (${page}) p ON true`
  return { text, values: params.values, planForValues: params.planForValues }
}

export interface SortContext extends FilterContext {
  /** SQL expression of the id column, e.g. 't._id': the tiebreaker, and the key for `_id` itself. */
  idColumn: string
}

/**
 * ORDER BY terms for `sort`. A field of a declared scalar kind sorts on its index expression,
 * missing and null first (ascending). Any other field follows MongoDB: missing = null < numbers
 * < strings (byte order) < objects < arrays < booleans, an array sorting by its smallest element
 * ascending and its largest descending, and an empty array before null.
 */
export function compileSort(sort: Sort, ctx: SortContext): string {
  const terms = sort.map(([path, direction]) => compileSortTerm(path, direction, ctx))
  if (!sort.some(([path]) => path === '_id')) terms.push(`${ctx.idColumn} ${sort.at(-1)?.[1] === -1 ? 'DESC' : 'ASC'}`)
  return terms.join(', ')
}

function compileSortTerm(path: string, direction: unknown, ctx: SortContext): string {
  if (direction !== 1 && direction !== -1)
    throw new QuireError('INVALID_QUERY', `Sort direction of ${path} must be 1 or -1`)
  const dir = direction === 1 ? 'ASC' : 'DESC'
  if (path === '_id') return `${ctx.idColumn} ${dir}`
  const segs = parseFieldPath(path)
  const scalar = scalarField(ctx.doc, segs, ctx.kindOf?.(path))
  if (scalar) return `${scalar.expr} ${dir} NULLS ${direction === 1 ? 'FIRST' : 'LAST'}`
  const emptyOrMissing = `CASE WHEN ${ctx.doc} @? ${jsonpathLiteral(fieldPath(segs))} THEN 0 ELSE 1 END`
  return (
    `(SELECT ${typeOrderKey('k.v', emptyOrMissing)} FROM (SELECT ${sortValue(ctx.doc, segs, dir)} AS v) AS ` +
    `k) ${dir}`
  )
}

/**
 * The value a document sorts by: the field's value, or its smallest/largest element or value reached through arrays.
 */
function sortValue(doc: string, segs: string[], dir: string): string {
  const value = valueExpr(doc, segs)
  const candidates = jsonpathLiteral(`${fieldPath(segs)}[*]`)
  const pick =
    `(SELECT s.v FROM (SELECT jsonb_path_query(${doc}, ${candidates}) AS v) AS s ORDER ` +
    `BY ${typeOrderKey('s.v', '1')} ${dir} LIMIT 1)`
  return (
    `CASE WHEN jsonb_typeof(${value}) IN ('null', 'number', 'string', 'object', 'boolean') THEN ${value} ` +
    `ELSE ${pick} END`
  )
}

/**
 * One row value ordering jsonb values by MongoDB's type order, then within the type: strings in
 * byte order (the row keeps the C collation), numbers, booleans and documents in jsonb order.
 */
function typeOrderKey(value: string, missingRank: string): string {
  const rank =
    `CASE jsonb_typeof(${value}) WHEN 'null' THEN 1 WHEN 'number' THEN 2 WHEN 'string' THEN 3 ` +
    `WHEN 'object' THEN 4 WHEN 'array' THEN 5 WHEN 'boolean' THEN 6 ELSE ${missingRank} END`
  const text = `(CASE WHEN jsonb_typeof(${value}) = 'string' THEN ${value} #>> '{}' END) COLLATE "C"`
  return `ROW(${rank}, ${text}, NULLIF(${value}, 'null'::jsonb))`
}
