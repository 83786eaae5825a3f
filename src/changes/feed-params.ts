// The query parameters of a change feed: the list's filter syntax (filter[...],
// search[...]) and showDeleted; the list's paging, sorting, projection, full-text
// search and populate do not apply to a stream and are a 400.
import type { Model } from '../models/model-definition.ts'
import type { Filter } from '../query/types.ts'
import { parseListParams, type QueryParams } from '../query/parse-list-params.ts'
import { QuireError } from '../errors.ts'

export interface FeedParams {
  filter: Filter
  showDeleted: boolean
}

const NOT_FOR_STREAMS = /^(limit|page|sort|fields|search|populate|autopopulate)$|^(sort|populate)\[/

export function parseFeedParams(model: Model, query: QueryParams): FeedParams {
  const refused = Object.keys(query).find(name => NOT_FOR_STREAMS.test(name))
  if (refused !== undefined)
    throw new QuireError(
      'BAD_REQUEST',
      `${refused.slice(0, 64)} does not apply to a change feed (use filter[...] and showDeleted)`
    )
  const params = parseListParams(model, query)
  return { filter: params.filter, showDeleted: params.showDeleted }
}

/** A subscription to one document: the client's filter and that id. */
export function withDocumentId(filter: Filter, id: string): Filter {
  return Object.keys(filter).length === 0 ? { _id: id } : { $and: [filter, { _id: id }] }
}
