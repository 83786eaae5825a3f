// The rows a caller may touch, as a filter: soft delete and, for owner-only access,
// the owner condition. Reads, writes, populate and every $lookup source take their
// narrowing from here and nowhere else.
import type { Caller } from '../auth/caller.ts'
import type { Model } from '../models/model-definition.ts'
import type { Filter } from '../query/types.ts'
import { QuireError } from '../errors.ts'
import { accessTo, requireAccess, type Access, type Letter } from './access.ts'

/** Matches nothing: what a caller sees of a model it may not read. */
const NOTHING: Filter = { _id: { $in: [] } }

/** The owner condition of an access: the caller's own documents for 'own', nothing for 'any'. */
export function ownerCondition(access: Access, caller: Caller): Filter {
  return access === 'own' ? { _owner_id: caller.userId } : {}
}

/**
 * Joins conditions into one filter ({} when there are none): merged into one object when no key
 * repeats (so an `_id` stays at the top, where engines use the primary key), else under $and.
 */
export function allOf(...filters: Filter[]): Filter {
  const parts = filters.filter(f => Object.keys(f).length > 0)
  if (parts.length <= 1) return parts[0] ?? {}
  const keys = parts.flatMap(f => Object.keys(f))
  if (new Set(keys).size === keys.length) return Object.fromEntries(parts.flatMap(f => Object.entries(f)))
  return { $and: parts }
}

/**
 * What every read of `model` by `caller` is narrowed to; 401/403 when it may not read at all.
 * showDeleted needs the right to delete any document, unless `deletedForReaders` (JXP_COMPAT).
 */
export function readScope(model: Model, caller: Caller, showDeleted = false, deletedForReaders = false): Filter {
  const access = requireAccess(model, caller, 'r')
  if (showDeleted && !deletedForReaders && accessTo(model, caller, 'd') !== 'any') {
    throw new QuireError('FORBIDDEN', 'showDeleted needs the right to delete any document of this model')
  }
  return allOf(showDeleted ? {} : { _deleted: false }, ownerCondition(access, caller))
}

/** The linked documents a caller may see (populate, $lookup): live ones it may read, or none at all. */
export function linkScope(target: Model, caller: Caller): Filter {
  const access = accessTo(target, caller, 'r')
  return access === 'none' ? NOTHING : allOf({ _deleted: false }, ownerCondition(access, caller))
}

/**
 * What a write needing all of `letters` may touch (e.g. ['u', 'd'] for a PUT that deletes): the
 * owner condition of each letter, so an owner-only right is never widened by another letter's.
 * 401/403 when a letter is not granted at all.
 */
export function writeScope(model: Model, caller: Caller, letters: Letter[]): Filter {
  const accesses = letters.map(letter => requireAccess(model, caller, letter))
  return ownerCondition(accesses.includes('own') ? 'own' : 'any', caller)
}
