// Authorizes writes to existing documents: the filter a PUT, DELETE or bulk
// operation may touch, with every letter the write needs (a PUT that deletes needs
// u and d, and the owner-only scope of either narrows it), the filter that
// tells "exists but you may not change it" (403) from "not there for you" (404), and
// how much of the written document the reply may show.
import type { Caller } from '../../auth/caller.ts'
import type { Doc } from '../../storage/engine.ts'
import type { Model } from '../../models/model-definition.ts'
import type { Filter } from '../../query/types.ts'
import { checkFilter } from '../../validation/check-query.ts'
import { accessTo, requireAccess, type Letter } from '../access.ts'
import { authorized, type Authorized } from '../authorized.ts'
import { hiddenFields } from '../field-policy.ts'
import { allOf, ownerCondition, writeScope } from '../row-scope.ts'

/**
 * What a PUT changes besides fields: it may delete (needs d too) or restore (reaches deleted
 * documents); `sentOwner` is the `_owner_id` a non-admin sent back with the document it read: the
 * update applies only while that is still the owner (only admins change owners).
 */
export interface UpdateKind {
  deletes: boolean
  restores: boolean
  sentOwner?: string | null
}

/** Live documents, and deleted ones: all of them when `allDeleted`, else the caller's own. */
function liveOrOwnDeleted(caller: Caller, allDeleted: boolean): Filter {
  if (allDeleted) return {}
  return caller.userId === undefined
    ? { _deleted: false }
    : { $or: [{ _deleted: false }, { _owner_id: caller.userId }] }
}

/** The one document a PUT /api/{model}/{id} may change; a deleted one only to restore it, as an admin or its owner. */
export function authorizeUpdate(model: Model, caller: Caller, id: string, kind: UpdateKind): Authorized<Filter> {
  const letters: Letter[] = kind.deletes ? ['u', 'd'] : ['u']
  const owner = kind.sentOwner === undefined ? {} : { _owner_id: kind.sentOwner }
  const reach = kind.restores ? liveOrOwnDeleted(caller, caller.admin === true) : { _deleted: false }
  return authorized(allOf({ _id: id }, reach, writeScope(model, caller, letters), owner))
}

/**
 * What a bulk filter may select by: `_id` alone, or fields of documents the caller may read (a
 * filter that matches or not tells what a document holds, through the counts in the reply).
 */
function selectionScope(model: Model, caller: Caller, filter: Filter): Filter {
  if (Object.keys(filter).every(key => key === '_id')) return {}
  return ownerCondition(requireAccess(model, caller, 'r'), caller)
}

/** The documents a bulk operation may touch: its checked filter, live documents, the letter's scope. */
export function authorizeBulkFilter(
  model: Model,
  caller: Caller,
  filter: unknown,
  letter: 'u' | 'd'
): Authorized<Filter> {
  const checked = checkFilter(filter, hiddenFields(model))
  return authorized(
    allOf(checked, { _deleted: false }, writeScope(model, caller, [letter]), selectionScope(model, caller, checked))
  )
}

/**
 * The document `id` as far as the caller may read it, or undefined when it may read none: a write
 * that found nothing asks this to answer 403 or 404. With `includeDeleted`, a deleted document
 * counts when the caller may see deleted ones (d on any document, as for showDeleted) or owns it:
 * anyone else's 403 would tell that a document they cannot see exists.
 */
export function authorizeVisible(
  model: Model,
  caller: Caller,
  id: string,
  includeDeleted: boolean
): Authorized<Filter> | undefined {
  const access = accessTo(model, caller, 'r')
  if (access === 'none') return undefined
  const reach = includeDeleted ? liveOrOwnDeleted(caller, accessTo(model, caller, 'd') === 'any') : { _deleted: false }
  return authorized(allOf({ _id: id }, reach, ownerCondition(access, caller)))
}

/**
 * The written document (JSON) as a create or update answers with it: whole when the caller may
 * read it, else only its `_id`. A caller with c or u but not r (or r of its own documents only)
 * must not read through a write what a GET refuses it.
 */
export function writeReply(model: Model, caller: Caller, written: string): string {
  const access = accessTo(model, caller, 'r')
  if (access === 'any') return written
  const doc = JSON.parse(written) as Doc
  if (access === 'own' && caller.userId !== undefined && doc._owner_id === caller.userId) return written
  return JSON.stringify({ _id: doc._id })
}
