// Authorizes reads: a caller's list, get-by-id and count requests become the
// Authorized queries engines accept: the client's filter, sort and projection
// checked (no hidden field named), narrowed to the rows the caller may read, and
// every populated link narrowed to what the caller may read of the linked model (JXP's
// `_updated_by` too: every model's link to the user who wrote a document last).
import type { Caller } from '../../auth/caller.ts'
import type { FindQuery, PopulateSpec } from '../../storage/engine.ts'
import { QuireError } from '../../errors.ts'
import type { Model } from '../../models/model-definition.ts'
import type { ModelRegistry } from '../../models/model-registry.ts'
import type { Filter, Sort } from '../../query/types.ts'
import { checkFields, checkFilter, checkSearch, checkSort } from '../../validation/check-query.ts'
import { authorized, type Authorized } from '../authorized.ts'
import { hiddenFields } from '../field-policy.ts'
import { allOf, linkScope, readScope } from '../row-scope.ts'
import { USER_MODEL } from '../../auth/users/user-model.ts'

/** The link every model has, populated on request only (not by autopopulate), as JXP does. */
const UPDATED_BY_LINK = { field: '_updated_by_id', as: '_updated_by', target: USER_MODEL.name, many: false }

export interface ReadContext {
  caller: Caller
  registry: ModelRegistry
  /** showDeleted for whoever may read (JXP_COMPAT), not only for who may delete any document. */
  deletedForReaders?: boolean
}

/** What a client asks of a read, before any check. */
export interface ReadRequest {
  /** The client's own conditions (URL filters, /query's body), not yet checked. */
  filter: Filter
  sort: Sort
  fields?: string[]
  search?: string
  /** Link name (or field) -> only these fields (undefined: all). */
  populate: ReadonlyMap<string, string[] | undefined>
  autopopulate: boolean
  showDeleted: boolean
}

export interface Page {
  limit: number
  skip: number
  count: boolean
}

/** Populate specs for the requested links (by name or field), or for every link with autopopulate. */
function authorizePopulate(ctx: ReadContext, model: Model, request: ReadRequest): PopulateSpec[] {
  const requested = new Map(request.populate)
  if (request.autopopulate)
    for (const link of model.links)
      if (!requested.has(link.as) && !requested.has(link.field)) requested.set(link.as, undefined)
  return [...requested].map(([name, fields]) => {
    const link =
      model.links.find(l => l.as === name || l.field === name) ??
      (name === UPDATED_BY_LINK.as || name === UPDATED_BY_LINK.field ? UPDATED_BY_LINK : undefined)
    if (!link)
      throw new QuireError(
        'BAD_REQUEST',
        `Cannot populate ${name.slice(0, 64)}: ${model.name} has no such link ` +
          `(links: ${model.links.map(l => l.as).join(', ') || 'none'})`
      )
    const target = ctx.registry.get(link.target)
    return {
      field: link.field,
      as: link.as,
      target,
      many: link.many,
      fields: checkFields(fields),
      filter: authorized(linkScope(target, ctx.caller))
    }
  })
}

/** The checked client filter of a read of `model`, narrowed to the rows the caller may read. */
export function scopedFilter(ctx: ReadContext, model: Model, filter: Filter, showDeleted: boolean): Authorized<Filter> {
  const scope = readScope(model, ctx.caller, showDeleted, ctx.deletedForReaders)
  return authorized(allOf(scope, checkFilter(filter, hiddenFields(model))))
}

/** A list page (GET /api/{model}, POST /query/{model}) or a get by id, as the engines take it. */
export function authorizeFind(ctx: ReadContext, model: Model, request: ReadRequest, page: Page): Authorized<FindQuery> {
  return authorized({
    filter: scopedFilter(ctx, model, request.filter, request.showDeleted),
    sort: checkSort(request.sort, hiddenFields(model)),
    fields: checkFields(request.fields),
    ...page,
    search: checkSearch(model, request.search),
    populate: authorizePopulate(ctx, model, request)
  })
}

/** The filter of a count (GET /count/{model}). */
export function authorizeCount(
  ctx: ReadContext,
  model: Model,
  filter: Filter,
  showDeleted: boolean
): Authorized<Filter> {
  return scopedFilter(ctx, model, filter, showDeleted)
}
