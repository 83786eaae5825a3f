// Builds a list read's query for a caller: the page size (default and cap) and
// the page, around the permissions module's authorization of the request.
import type { FindQuery } from '../storage/engine.ts'
import type { Model } from '../models/model-definition.ts'
import { authorizeFind, type ReadContext } from '../permissions/authorize-read.ts'
import type { Authorized } from '../permissions/authorized.ts'
import { allOf } from '../permissions/row-scope.ts'
import type { ListParams } from './parse-list-params.ts'
import type { Filter } from './types.ts'

export interface PageSettings {
  defaultPageSize: number
  maxPageSize: number
}

export interface BuiltList {
  query: Authorized<FindQuery>
  limit: number
  page: number
  limitCapped: boolean
}

/** The complete FindQuery of a list read; `queryFilter` is the /query body's filter, if any. */
export function buildFindQuery(
  ctx: ReadContext,
  model: Model,
  params: ListParams,
  settings: PageSettings,
  queryFilter: Filter = {}
): BuiltList {
  const limitCapped = params.limit !== undefined && params.limit > settings.maxPageSize
  const limit = Math.min(params.limit ?? settings.defaultPageSize, settings.maxPageSize)
  const request = { ...params, filter: allOf(params.filter, queryFilter) }
  const query = authorizeFind(ctx, model, request, {
    limit,
    skip: (params.page - 1) * limit + params.skip,
    count: false
  })
  return { query, limit, page: params.page, limitCapped }
}
