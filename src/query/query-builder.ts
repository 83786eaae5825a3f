// The query builder: URL parameters and bodies -> the engine-neutral queries an
// engine accepts, authorized for the caller (src/permissions) with the paging
// settings applied. The `queryBuilder` plugin decorates the instance with one.
import type { Caller } from '../auth/caller.ts'
import type { FindQuery } from '../storage/engine.ts'
import type { Model } from '../models/model-definition.ts'
import type { ModelRegistry } from '../models/model-registry.ts'
import { authorizeCount, authorizeFind } from '../permissions/authorize-read.ts'
import type { Authorized } from '../permissions/authorized.ts'
import type { Filter } from './types.ts'
import { parseListParams, type ListParams, type QueryParams } from './parse-list-params.ts'
import { buildFindQuery, type BuiltList, type PageSettings } from './build-find-query.ts'

export interface QueryBuilder {
  parse: (model: Model, query: QueryParams) => ListParams
  /** A list read's query; `bodyFilter` is /query's MongoDB filter. */
  list: (model: Model, caller: Caller, params: ListParams, bodyFilter?: Filter) => BuiltList
  /** The query of GET /api/{model}/{id}: that one document, `fields` and `populate` applied. */
  one: (model: Model, caller: Caller, id: string, params: ListParams) => Authorized<FindQuery>
  /** The filter of GET /count/{model}. */
  count: (model: Model, caller: Caller, params: ListParams) => Authorized<Filter>
}

export function createQueryBuilder(registry: ModelRegistry, settings: PageSettings): QueryBuilder {
  return {
    parse: parseListParams,
    list: (model, caller, params, bodyFilter) =>
      buildFindQuery({ caller, registry }, model, params, settings, bodyFilter),
    one: (model, caller, id, params) =>
      authorizeFind(
        { caller, registry },
        model,
        { ...params, filter: { ...params.filter, _id: id } },
        { limit: 1, skip: 0, count: false }
      ),
    count: (model, caller, params) => authorizeCount({ caller, registry }, model, params.filter, params.showDeleted)
  }
}
