// What the built-in user model adds to document writes (called from
// src/documents): emails are stored lower-case, users own their own record,
// non-admins may change only their own name and password, groups cannot be
// named like roles, and a new password or a deletion ends the user's sessions.
import type { Doc } from '../engines/engine.ts'
import type { SystemStore } from '../permissions/system-access.ts'
import type { Model } from '../models/model-definition.ts'
import { QuireError } from '../errors.ts'
import { ROLE_NAMES, type Caller } from './caller.ts'
import { endSessions } from './sessions.ts'

/** Fields a non-admin may change in their own user record. */
const SELF_EDITABLE = ['name', 'password']

function isUserModel (model: Model): boolean {
  return model.builtIn === true && model.name === 'user'
}

/** Names of JavaScript's object machinery: never a group, whatever the perms of a model say. */
const OBJECT_NAMES = ['__proto__', 'constructor', 'prototype']

/** A group name must not be a role name (a group "admin" would grant the admin letters) nor an object-machinery name. */
export function checkGroupNames (groups: unknown): void {
  if (!Array.isArray(groups)) return
  const reserved = groups.filter(g => ROLE_NAMES.includes(g as string) || OBJECT_NAMES.includes(g as string))
  if (reserved.length) {
    throw new QuireError('VALIDATION_FAILED', `A group cannot be named ${reserved.join(', ')}: that is a reserved name`, [{ field: 'groups', message: `must not be one of ${[...ROLE_NAMES, ...OBJECT_NAMES].join(', ')}` }])
  }
}

/** The client's fields for a create or update, checked; user emails lower-cased. Other models' fields pass unchanged. */
export function applyUserRules (model: Model, caller: Caller, fields: Doc): Doc {
  if (!isUserModel(model)) return fields
  const refused = caller.admin ? [] : Object.keys(fields).filter(f => !SELF_EDITABLE.includes(f))
  if (refused.length) throw new QuireError('FORBIDDEN', `Only an admin can change ${refused.slice(0, 5).join(', ').slice(0, 200)} (you may change ${SELF_EDITABLE.join(' and ')})`)
  checkGroupNames(fields.groups)
  return typeof fields.email === 'string' ? { ...fields, email: fields.email.toLowerCase() } : fields
}

/** A new user record is owned by the user itself, unless an admin set _owner_id; other documents pass unchanged. */
export function ownUserRecord (model: Model, doc: Doc, ownerGiven: boolean): Doc {
  return isUserModel(model) && !ownerGiven ? { ...doc, _owner_id: doc._id } : doc
}

/** Bulk operations would bypass these rules (e.g. $set admin), so user records are written only through /api/user. */
export function refuseBulkUserWrites (model: Model): void {
  if (isUserModel(model)) throw new QuireError('FORBIDDEN', 'User records cannot be written in bulk: use /api/user')
}

/** After a user record was written: a new password or a deletion ends the user's sessions. */
export async function afterUserWrite (engine: SystemStore, model: Model, id: string, set: Doc): Promise<void> {
  if (isUserModel(model) && ('password' in set || set._deleted === true)) await endSessions(engine, id)
}
