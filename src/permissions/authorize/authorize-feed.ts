// Authorizes what a change-feed subscriber receives, asked again for every event with the
// subscriber's current caller: the rows it may read (its own for owner-only readers,
// soft-deleted ones only with showDeleted) narrowed by its checked filter, exactly as a
// list read; and whether a change whose document is unknown may reach it at all.
import type { Caller } from '../../auth/caller.ts'
import type { Model } from '../../models/model-definition.ts'
import type { ModelRegistry } from '../../models/model-registry.ts'
import type { Filter } from '../../query/types.ts'
import { accessTo } from '../access.ts'
import type { Authorized } from '../authorized.ts'
import { scopedFilter } from './authorize-read.ts'

/** The filter a change's document must match to reach the subscriber; 401/403/400 like a list read. */
export function authorizeFeed(
  caller: Caller,
  registry: ModelRegistry,
  model: Model,
  filter: Filter,
  showDeleted: boolean
): Authorized<Filter> {
  return scopedFilter({ caller, registry }, model, filter, showDeleted)
}

/**
 * A change whose document the engine cannot give (a permanent delete on MongoDB without
 * pre-images): only a subscriber that reads every document and filters on nothing but, at
 * most, this document's id may learn of it.
 */
export function mayLearnOfUnknown(caller: Caller, model: Model, filter: Filter, docId: string): boolean {
  const keys = Object.keys(filter)
  const onlyThisId = keys.length === 0 || (keys.length === 1 && filter._id === docId)
  return onlyThisId && accessTo(model, caller, 'r') === 'any'
}
