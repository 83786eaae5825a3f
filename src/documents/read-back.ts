// What JXP's front ends send back in a write besides the fields: a document they read
// (read-edit-write) carries `_owner_id`, `_deleted: false`, populated links under their
// own names and a search `score`; JXP's `_silence` flag rides along in bodies. These
// are left out instead of refused (and in a bulk update without operators, which
// jxp-helper's bulk_put sends whole documents as, the read-only system fields too). A non-admin's `_owner_id` stays as
// a condition: the
// update applies only while the document's owner is the one sent (changing it is an admin's).
import type { Caller } from '../auth/caller.ts'
import type { Doc } from '../storage/engine.ts'
import type { Model } from '../models/model-definition.ts'
import { isValidId } from '../ids.ts'
import { QuireError } from '../errors.ts'
import { READ_ONLY_SYSTEM_FIELDS } from '../models/model-definition.ts'

export interface ReadBack {
  body: unknown
  /** The `_owner_id` a non-admin sent back with an update: it must be the document's current owner. */
  sentOwner?: string | null
}

/** Keys a read produced that are not fields of the model: populated link names, the search score, JXP's _silence. */
function producedKeys(model: Model): string[] {
  return [...model.links.map(link => link.as), 'score', '_silence'].filter(key => !Object.hasOwn(model.fields, key))
}

/** `body` without `keys`: the body itself when it has none of them (most writes). */
function withoutKeys(body: Doc, keys: string[]): Doc {
  if (!keys.some(key => Object.hasOwn(body, key))) return body
  return Object.fromEntries(Object.entries(body).filter(([key]) => !keys.includes(key)))
}

function checkSentOwner(owner: unknown): string | null {
  if (owner === null || isValidId(owner)) return owner
  throw new QuireError('VALIDATION_FAILED', '_owner_id must be a document id', [
    { field: '_owner_id', message: 'must be 24 hex characters' }
  ])
}

/** A create's body: a non-admin's own `_owner_id` and `_deleted: false` (what a read shows) are left out. */
export function createBody(model: Model, caller: Caller, body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body
  const drop = producedKeys(model)
  const doc = body as Doc
  if (doc._deleted === false || doc._deleted === 'false') drop.push('_deleted')
  if (!caller.admin && doc._owner_id !== undefined && doc._owner_id === (caller.userId ?? null)) drop.push('_owner_id')
  return withoutKeys(doc, drop)
}

/** Fields the service maintains, ignored when a client sends them back. */

/** A bulk update: one without operators (a whole document) loses what a read produced and the read-only fields. */
export function bulkUpdateBody(model: Model, update: unknown): unknown {
  if (
    !update ||
    typeof update !== 'object' ||
    Array.isArray(update) ||
    Object.keys(update).some(key => key.startsWith('$'))
  )
    return update
  const drop = [
    ...producedKeys(model),
    ...READ_ONLY_SYSTEM_FIELDS,
    ...((update as Doc)._deleted === false ? ['_deleted'] : [])
  ]
  return withoutKeys(update as Doc, drop)
}

/** An update's body, and the `_owner_id` a non-admin sent back (a condition, not a change). */
export function updateBody(model: Model, caller: Caller, body: unknown): ReadBack {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { body }
  const doc = body as Doc
  if (caller.admin || doc._owner_id === undefined) return { body: withoutKeys(doc, producedKeys(model)) }
  return { body: withoutKeys(doc, [...producedKeys(model), '_owner_id']), sentOwner: checkSentOwner(doc._owner_id) }
}
