// The query builder, a door to the query room for the routes: URL parameters -> list parameters,
// and the authorized queries of a read by id and of a count (src/permissions). A list read spells
// its steps out itself (src/documents/read-documents.ts). The `queryBuilder` plugin decorates
// the instance with one.
import type { Caller } from '../auth/caller.ts'
import type { FindQuery } from '../storage/engine.ts'
import type { Model } from '../models/model-definition.ts'
import type { ModelRegistry } from '../models/model-registry.ts'
import { authorizeCount, authorizeFind } from '../permissions/authorize/authorize-read.ts'
import type { Authorized } from '../permissions/authorized.ts'
import type { Filter } from './types.ts'
import { parseListParams, type ListParams, type QueryParams } from './parse-list-params.ts'
import type { PageSettings } from './plan-list.ts'

export interface QueryBuilder {
  /** The page sizes list reads use (src/query/plan-list.ts). */
  settings: PageSettings
  parse: (model: Model, query: QueryParams) => ListParams
  /** The query of GET /api/{model}/{id}: that one document, `fields` and `populate` applied. */
  one: (model: Model, caller: Caller, id: string, params: ListParams) => Authorized<FindQuery>
  /** The filter of GET /count/{model}. */
  count: (model: Model, caller: Caller, params: ListParams) => Authorized<Filter>
}

/** `jxpCompat`: showDeleted for every reader, as JXP (src/permissions/row-scope.ts). */
export function createQueryBuilder(
  registry: ModelRegistry,
  settings: PageSettings & { jxpCompat?: boolean }
): QueryBuilder {
  const deletedForReaders = settings.jxpCompat === true
  return {
    settings,
    parse: parseListParams,
    one: (model, caller, id, params) =>
      authorizeFind(
        { caller, registry, deletedForReaders },
        model,
        { ...params, filter: { ...params.filter, _id: id } },
        { limit: 1, skip: 0, count: false }
      ),
    count: (model, caller, params) =>
      authorizeCount({ caller, registry, deletedForReaders }, model, params.filter, params.showDeleted)
  }
}
