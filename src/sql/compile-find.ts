// Compiles a FindQuery into one SQL statement: filter, full-text search, sort,
// projection, populate (correlated subqueries) and paging, plus the exact count
// in the same round trip when it is asked for.
import type { FindQuery, PopulateSpec } from '../engines/engine.ts'
import type { Model } from '../models/model-definition.ts'
import { fieldKindLookup } from '../models/field-kinds.ts'
import type { Filter } from '../query/types.ts'
import { compileFilter } from './compile-filter.ts'
import { containmentLookup } from './containment.ts'
import { compileSort } from './compile-sort.ts'
import { compileProjection } from './compile-projection.ts'
import { jsonPathExpr, quoteIdent, quoteLiteral } from './quote.ts'
import { fulltextColumn, tableName } from './schema-ddl.ts'
import { SqlParams, type SqlValue } from './sql-params.ts'
import { prefixWalkSource } from './prefix-walk.ts'
import { QuireError } from '../errors.ts'

export interface CompiledSql {
  text: string
  values: SqlValue[]
  planForValues?: boolean
  /** A cheaper statement (same values) to run first (src/sql/prefix-walk.ts): when it returns `limit` rows, they are the page. */
  firstTry?: string
}

/** WHERE condition for `filter` on alias `t`; a string `_id` goes to the primary key column instead. */
export function compileWhere (model: Model, filter: Filter, params: SqlParams, alias = 't'): string {
  const ctx = { params, doc: `${alias}.doc`, kindOf: fieldKindLookup(model), containment: containmentLookup(model) }
  if (typeof filter._id !== 'string') return compileFilter(filter, ctx)
  const { _id: id, ...rest } = filter
  const condition = compileFilter(rest, ctx)
  return `${alias}._id = ${params.add(id as string)} AND ${condition}`
}

/** Paging as literals (validated integers): PostgreSQL then reuses one generic plan per statement text. */
function pageClause (query: FindQuery, order: string): string {
  if (!Number.isSafeInteger(query.limit) || !Number.isSafeInteger(query.skip) || query.limit < 0 || query.skip < 0) {
    throw new QuireError('BAD_REQUEST', 'limit and page must be whole numbers')
  }
  if (typeof query.filter._id === 'string' && query.skip === 0 && query.search === undefined) return 'LIMIT 1'
  return `ORDER BY ${order} LIMIT ${query.limit} OFFSET ${query.skip}`
}

function populateExpr (spec: PopulateSpec, params: SqlParams, depth: number): string {
  const alias = `p${depth}`
  const table = quoteIdent(tableName(spec.target))
  const proj = compileProjection(spec.fields, { params, doc: `${alias}.doc` }, { exclude: spec.target.passwordFields })
  const where = compileWhere(spec.target, spec.filter, params, alias)
  if (!spec.many) {
    return `(SELECT ${proj} FROM ${table} ${alias} WHERE ${alias}._id = (t.doc->>${quoteLiteral(spec.field)}) AND ${where})`
  }
  const link = jsonPathExpr('t.doc', spec.field)
  const ids = `CASE WHEN jsonb_typeof(${link}) = 'array' THEN ${link} ELSE '[]'::jsonb END`
  return `(SELECT coalesce(jsonb_agg(${proj} ORDER BY a.ord), '[]'::jsonb) FROM jsonb_array_elements_text(${ids}) WITH ORDINALITY a(id, ord) ` +
    `JOIN ${table} ${alias} ON ${alias}._id = a.id WHERE ${where})`
}

/** The jsonb expression of one result row: projection, populated links and the search score. */
function rowExpr (model: Model, query: FindQuery, params: SqlParams, score?: string): string {
  let expr = compileProjection(query.fields, { params, doc: 't.doc' }, { exclude: model.passwordFields })
  const extras = query.populate.map((spec, i) => `${quoteLiteral(spec.as)}, ${populateExpr(spec, params, i)}`)
  if (score) extras.push(`'score', ${score}`)
  if (extras.length) expr = `(${expr}) || jsonb_build_object(${extras.join(', ')})`
  return expr
}

function searchParts (model: Model, text: string, params: SqlParams): { where: string, score: string } {
  const fts = fulltextColumn(model)
  if (!fts) throw new Error(`search on ${model.name}, which has no full-text index`)
  const tsquery = `websearch_to_tsquery(${quoteLiteral(fts.language)}::regconfig, ${params.add(text)})`
  const column = `t.${quoteIdent(fts.name)}`
  return { where: `${column} @@ ${tsquery}`, score: `ts_rank(${column}, ${tsquery})` }
}

/**
 * How many of a search's matches a page ranks at most: a query matching up to this many documents
 * gets its true top; above it, the page ranks the first this many matches found in storage order
 * (roughly the oldest documents), so that a common word costs what 10,000 matches cost instead of
 * growing with the collection (README, "Full-text search"). Exports rank every match.
 */
export const SEARCH_CANDIDATES = 10_000

export interface FindOptions {
  /** Only documents whose _id sorts after it, on the primary key (a keyset read in _id order). */
  afterId?: string
  /** Rank every match of a search (exports), not at most SEARCH_CANDIDATES. */
  rankAll?: boolean
}

/**
 * One statement answering a FindQuery. Each row has `d` (a document as JSON text, or null on an
 * empty page) and, when the count is asked for, `total` (the same on every row: all matches).
 */
export function compileFind (model: Model, query: FindQuery, options: FindOptions = {}): CompiledSql {
  const params = new SqlParams()
  const table = quoteIdent(tableName(model))
  let where = compileWhere(model, query.filter, params)
  if (options.afterId !== undefined) where = `t._id > ${params.add(options.afterId)} AND ${where}`
  let order = compileSort(query.sort, { params, doc: 't.doc', idColumn: 't._id', kindOf: fieldKindLookup(model) })
  let score: string | undefined
  if (query.search !== undefined) {
    const search = searchParts(model, query.search, params)
    where = `${search.where} AND ${where}`
    score = search.score
    order = `${score} DESC, ${order}`
  }
  const clause = pageClause(query, order)
  const matches = `${table} t WHERE ${where}`
  const ranked = score !== undefined && options.rankAll !== true ? `(SELECT t.* FROM ${matches} LIMIT ${SEARCH_CANDIDATES}) t` : matches
  const row = rowExpr(model, query, params, score)
  // The page's rows are chosen first and only they are projected and populated: PostgreSQL would
  // otherwise build the JSON text of every matching row before sorting (331 ms for 10k matches).
  const reorder = clause.startsWith('ORDER BY') ? ` ORDER BY ${order}` : ''
  const pageFrom = (source: string): string => `SELECT (${row})::text AS d FROM (SELECT t.* FROM ${source} ${clause}) t${reorder}`
  const page = pageFrom(ranked)
  if (!query.count) {
    const walk = params.planForValues && score === undefined && options.afterId === undefined && clause.startsWith('ORDER BY')
      ? prefixWalkSource(table, where, order, query)
      : undefined
    const firstTry = walk === undefined ? undefined : pageFrom(walk)
    return { text: page, values: params.values, planForValues: params.planForValues, firstTry }
  }
  const text = `SELECT c.total, p.d FROM (SELECT count(*) AS total FROM ${table} t WHERE ${where}) c ` +
    `LEFT JOIN LATERAL (${page}) p ON true`
  return { text, values: params.values, planForValues: params.planForValues }
}
