// Builds the engine-neutral FindQuery for a caller: adds the soft-delete and
// owner filters, resolves populate against the linked models' permissions, and
// applies the default page size and the cap.
import type { Caller } from '../auth/caller.ts'
import { accessTo, ownerFilter, requireAccess } from '../auth/permissions.ts'
import type { FindQuery, PopulateSpec } from '../engines/engine.ts'
import type { Model } from '../models/model-definition.ts'
import type { ModelRegistry } from '../models/model-registry.ts'
import type { ListParams } from './parse-list-params.ts'
import type { Filter } from './types.ts'
import { QuireError } from '../errors.ts'
import { refuseSecretFields } from '../auth/secret-fields.ts'

export interface PageSettings { defaultPageSize: number, maxPageSize: number }

/** The filter every read of `model` by `caller` must include; 401/403 when it may not read at all. */
export function readFilter (model: Model, caller: Caller, showDeleted = false): Filter {
  const access = requireAccess(model, caller, 'r')
  if (showDeleted && accessTo(model, caller, 'd') !== 'any') {
    throw new QuireError('FORBIDDEN', 'showDeleted needs the right to delete any document of this model')
  }
  return { ...(showDeleted ? {} : { _deleted: false }), ...ownerFilter(access, caller) }
}

/** Matches nothing: linked documents of a model the caller may not read are left out. */
const NOTHING: Filter = { _id: { $in: [] } }

function linkFilter (target: Model, caller: Caller): Filter {
  const access = accessTo(target, caller, 'r')
  return access === 'none' ? NOTHING : { _deleted: false, ...ownerFilter(access, caller) }
}

/** Populate specs for the requested links (by name or field), or for every link with autopopulate. */
export function resolvePopulate (model: Model, registry: ModelRegistry, caller: Caller, params: Pick<ListParams, 'populate' | 'autopopulate'>): PopulateSpec[] {
  const requested = new Map(params.populate)
  if (params.autopopulate) for (const link of model.links) if (!requested.has(link.as) && !requested.has(link.field)) requested.set(link.as, undefined)
  return [...requested].map(([name, fields]) => {
    const link = model.links.find(l => l.as === name || l.field === name)
    if (!link) throw new QuireError('BAD_REQUEST', `Cannot populate ${name.slice(0, 64)}: ${model.name} has no such link (links: ${model.links.map(l => l.as).join(', ') || 'none'})`)
    const target = registry.get(link.target)
    return { field: link.field, as: link.as, target, many: link.many, fields, filter: linkFilter(target, caller) }
  })
}

export interface BuiltList { query: FindQuery, limit: number, page: number, limitCapped: boolean }

/** The complete FindQuery of a list read; `queryFilter` is the /query body's filter, if any. */
export function buildFindQuery (model: Model, registry: ModelRegistry, caller: Caller, params: ListParams,
  settings: PageSettings, queryFilter: Filter = {}): BuiltList {
  const base = readFilter(model, caller, params.showDeleted)
  refuseSecretFields(model, { $and: [params.filter, queryFilter] }, params.sort)
  const parts = [base, params.filter, queryFilter].filter(f => Object.keys(f).length > 0)
  const limitCapped = params.limit !== undefined && params.limit > settings.maxPageSize
  const limit = Math.min(params.limit ?? settings.defaultPageSize, settings.maxPageSize)
  return {
    query: {
      filter: parts.length === 1 ? parts[0] : { $and: parts },
      sort: params.sort,
      fields: params.fields,
      limit,
      skip: (params.page - 1) * limit,
      count: false,
      search: params.search,
      populate: resolvePopulate(model, registry, caller, params)
    },
    limit,
    page: params.page,
    limitCapped
  }
}
