// The query builder: URL parameters and bodies -> the engine-neutral query,
// with permissions and paging settings applied. The `queryBuilder` plugin
// decorates the instance with one.
import type { Caller } from '../auth/caller.ts'
import type { Model } from '../models/model-definition.ts'
import type { ModelRegistry } from '../models/model-registry.ts'
import type { PopulateSpec } from '../engines/engine.ts'
import type { Filter } from './types.ts'
import { parseListParams, type ListParams, type QueryParams } from './parse-list-params.ts'
import { buildFindQuery, readFilter, resolvePopulate, type BuiltList, type PageSettings } from './build-find-query.ts'

export interface QueryBuilder {
  parse: (model: Model, query: QueryParams) => ListParams
  /** A list read's FindQuery; `bodyFilter` is /query's MongoDB filter. */
  list: (model: Model, caller: Caller, params: ListParams, bodyFilter?: Filter) => BuiltList
  /** The soft-delete and owner filter of any read. */
  readFilter: (model: Model, caller: Caller, showDeleted?: boolean) => Filter
  populate: (model: Model, caller: Caller, params: ListParams) => PopulateSpec[]
}

export function createQueryBuilder (registry: ModelRegistry, settings: PageSettings): QueryBuilder {
  return {
    parse: parseListParams,
    list: (model, caller, params, bodyFilter) => buildFindQuery(model, registry, caller, params, settings, bodyFilter),
    readFilter,
    populate: (model, caller, params) => resolvePopulate(model, registry, caller, params)
  }
}
