// Read operations on documents: one by id, a list page with counts, a count. A list's answer is
// written as JSON text around the engine's page (passed through unparsed): count, paging keys,
// next/prev links, data.
import type { Model } from '../models/model-definition.ts'
import type { Filter } from '../query/types.ts'
import { parseListParams, type QueryParams } from '../query/parse-list-params.ts'
import { planCount, planPage } from '../query/plan-list.ts'
import { authorizeFind } from '../permissions/authorize/authorize-read.ts'
import { isValidId } from '../ids.ts'
import { QuireError } from '../errors.ts'
import { deletedDocumentError } from '../jxp/deleted-document.ts'
import { reviveJxpLiterals } from '../query/jxp-literals.ts'
import { allOf } from '../permissions/row-scope.ts'
import type { DocumentContext } from './document-context.ts'

interface ListAnswer {
  /** JSON text of the documents array. */
  data: string
  /** Number of documents in `data`. */
  returned: number
  /** Exact count, or -1 when the collection is too large to count on every read, or the planner's estimate. */
  count: number
  /** `count` is the planner's estimate (count=planned or estimated): paging follows the page, not the count. */
  countEstimated?: boolean
  limit: number
  page: number
  limitCapped: boolean
  /** The request's path and query string, e.g. "/api/test?limit=10&filter[foo]=x". */
  url: string
}

/** The same URL with `page` set to `page` (every other parameter kept, credentials left out). */
function pageUrl(url: string, page: number): string {
  const [path, query = ''] = url.split(/\?(.*)/s)
  const params = new URLSearchParams(query)
  params.delete('apikey')
  params.delete('jwt')
  params.set('page', String(page))
  return `${path}?${params.toString()}`
}

function writeListResponse(page: ListAnswer): string {
  const pageCount = page.count < 0 ? -1 : Math.ceil(page.count / page.limit)
  const hasNext = page.count < 0 || page.countEstimated === true ? page.returned === page.limit : page.page < pageCount
  const head: Record<string, unknown> = {
    count: page.count,
    ...(page.countEstimated && { count_estimated: true }),
    limit: page.limit,
    page: page.page,
    page_count: pageCount,
    ...(page.limitCapped && { limit_capped: true }),
    ...(hasNext && { next: pageUrl(page.url, page.page + 1) }),
    ...(page.page > 1 && { prev: pageUrl(page.url, page.page - 1) })
  }
  return `${JSON.stringify(head).slice(0, -1)},"data":${page.data}}`
}

export function checkId(id: string): void {
  if (!isValidId(id)) throw new QuireError('INVALID_ID', 'A document id is 24 hexadecimal characters')
}

/** GET /api/{model}/{_id}: `{"data": doc}` as JSON text; `fields` and `populate` apply. */
export async function readDocument(
  ctx: DocumentContext,
  model: Model,
  id: string,
  query: QueryParams
): Promise<string> {
  checkId(id)
  const qb = ctx.queryBuilder
  const params = qb.parse(model, query)
  const doc = await ctx.engine.findOne(model, qb.one(model, ctx.caller, id, params))
  if (doc === null)
    throw (
      (await deletedDocumentError(ctx, model, id, params)) ??
      new QuireError('DOCUMENT_NOT_FOUND', `No ${model.name} document with id ${id}`)
    )
  return `{"data":${doc}}`
}

/**
 * GET /api/{model} and POST /query/{model} (JXP's literal strings in its filter converted): a page
 * with count and paging keys, as JSON text. The steps of every list read, in order.
 */
export async function listDocuments(
  ctx: DocumentContext,
  model: Model,
  query: QueryParams,
  url: string,
  queryFilter?: Filter
): Promise<string> {
  // 1. Parse: the URL's filters, sort, fields, populate, paging (and /query's body filter).
  const params = parseListParams(model, query)
  const filter = queryFilter ? allOf(params.filter, reviveJxpLiterals(queryFilter) as Filter) : params.filter
  // 2. Plan the page, then authorise: every part checked, narrowed to what the caller may read.
  const page = planPage(params, ctx.queryBuilder.settings)
  const authorizedQuery = authorizeFind(
    { caller: ctx.caller, registry: ctx.registry, deletedForReaders: ctx.config.jxpCompat },
    model,
    { ...params, filter },
    page
  )
  // 3. Plan the count: exact while the collection is small enough, else -1, or as the caller asked (count=).
  const how = await planCount(params.count, authorizedQuery.search !== undefined, {
    estimate: () => ctx.estimateCount(model.name),
    exactCountLimit: ctx.config.exactCountLimit
  })
  // 4. Execute: one statement (page, populate and count) on the engine, and the planner's estimate when asked.
  const [result, planned] = await Promise.all([
    ctx.engine.find(model, { ...authorizedQuery, count: how === 'exact' }),
    how === 'planned' ? ctx.engine.planCount(model, authorizedQuery.filter) : undefined
  ])
  // 5. Shape and respond: the stored JSON spliced into the list envelope, with paging links.
  return writeListResponse({
    data: result.data,
    returned: result.returned,
    count: how === 'exact' ? (result.count ?? 0) : (planned ?? -1),
    countEstimated: planned !== undefined,
    limit: page.limit,
    page: page.page,
    limitCapped: page.limitCapped,
    url
  })
}

/**
 * GET /count/{model} (and MCP's count, with a MongoDB filter): the exact number of matching documents (search is not
 * supported there).
 */
export async function countDocuments(
  ctx: DocumentContext,
  model: Model,
  query: QueryParams,
  queryFilter?: Filter
): Promise<number> {
  const params = ctx.queryBuilder.parse(model, query)
  if (params.search !== undefined)
    throw new QuireError('SEARCH_NOT_SUPPORTED', 'Full-text search is not supported by /count')
  const filter =
    queryFilter === undefined ? params.filter : allOf(params.filter, reviveJxpLiterals(queryFilter) as Filter)
  return await ctx.engine.count(model, ctx.queryBuilder.count(model, ctx.caller, { ...params, filter }))
}
