// Authorizes writes to existing documents: the filter a PUT, DELETE or bulk
// operation may touch, with every letter the write needs (a PUT that deletes needs
// u and d, and the owner-only scope of either narrows it), and the filter that
// tells "exists but you may not change it" (403) from "not there for you" (404).
import type { Caller } from '../auth/caller.ts'
import type { Model } from '../models/model-definition.ts'
import type { Filter } from '../query/types.ts'
import { checkFilter } from '../validation/check-filter.ts'
import { accessTo, type Letter } from './access.ts'
import { authorized, type Authorized } from './authorized.ts'
import { hiddenFields } from './field-policy.ts'
import { allOf, ownerCondition, writeScope } from './row-scope.ts'

/**
 * What a PUT changes besides fields: it may delete (needs d too) or restore (reaches deleted
 * documents); `sentOwner` is the `_owner_id` a non-admin sent back with the document it read: the
 * update applies only while that is still the owner (only admins change owners).
 */
export interface UpdateKind { deletes: boolean, restores: boolean, sentOwner?: string | null }

/** The one document a PUT /api/{model}/{id} may change. */
export function authorizeUpdate (model: Model, caller: Caller, id: string, kind: UpdateKind): Authorized<Filter> {
  const letters: Letter[] = kind.deletes ? ['u', 'd'] : ['u']
  const owner = kind.sentOwner === undefined ? {} : { _owner_id: kind.sentOwner }
  return authorized(allOf({ _id: id }, kind.restores ? {} : { _deleted: false }, writeScope(model, caller, letters), owner))
}

/** The documents a bulk operation may touch: its checked filter, live documents, the letter's scope. */
export function authorizeBulkFilter (model: Model, caller: Caller, filter: unknown, letter: 'u' | 'd'): Authorized<Filter> {
  const scope = writeScope(model, caller, [letter])
  return authorized(allOf(checkFilter(filter, hiddenFields(model)), { _deleted: false }, scope))
}

/**
 * The document `id` as far as the caller may read it (deleted ones included when `includeDeleted`),
 * or undefined when it may read none: a write that found nothing asks this to answer 403 or 404.
 */
export function authorizeVisible (model: Model, caller: Caller, id: string, includeDeleted: boolean): Authorized<Filter> | undefined {
  const access = accessTo(model, caller, 'r')
  if (access === 'none') return undefined
  return authorized(allOf({ _id: id }, includeDeleted ? {} : { _deleted: false }, ownerCondition(access, caller)))
}
