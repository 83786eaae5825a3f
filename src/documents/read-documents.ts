// Read operations on documents: one by id, a list page with counts, a count.
import type { Model } from '../models/model-definition.ts'
import type { Filter } from '../query/types.ts'
import type { QueryParams } from '../query/parse-list-params.ts'
import { writeListResponse } from '../query/list-response.ts'
import { isValidId } from '../ids.ts'
import { QuireError } from '../errors.ts'
import { reviveJxpLiterals } from '../query/jxp-literals.ts'
import { allOf } from '../permissions/row-scope.ts'
import type { DocumentContext } from './document-context.ts'

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
  const doc = await ctx.engine.findOne(model, qb.one(model, ctx.caller, id, qb.parse(model, query)))
  if (doc === null) throw new QuireError('DOCUMENT_NOT_FOUND', `No ${model.name} document with id ${id}`)
  return `{"data":${doc}}`
}

/** GET /api/{model} and POST /query/{model} (JXP's literal strings in its filter converted): a page with count and paging keys, as JSON text. */
export async function listDocuments(
  ctx: DocumentContext,
  model: Model,
  query: QueryParams,
  url: string,
  queryFilter?: Filter
): Promise<string> {
  const params = ctx.queryBuilder.parse(model, query)
  const built = ctx.queryBuilder.list(
    model,
    ctx.caller,
    params,
    queryFilter && (reviveJxpLiterals(queryFilter) as Filter)
  )
  const exact = (await ctx.estimateCount(model.name)) <= ctx.config.exactCountLimit
  const result = await ctx.engine.find(model, { ...built.query, count: exact })
  return writeListResponse({
    data: result.data,
    returned: result.returned,
    count: exact ? (result.count ?? 0) : -1,
    limit: built.limit,
    page: built.page,
    limitCapped: built.limitCapped,
    url
  })
}

/** GET /count/{model} (and MCP's count, with a MongoDB filter): the exact number of matching documents (search is not supported there). */
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
