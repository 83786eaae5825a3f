// Decides what a caller may do with a model, from the model's perms:
// roles (admin, owner, user, all, named groups) -> letters c, r, u, d.
// No perms -> admins only; deny by default.
import type { Model } from '../models/model-definition.ts'
import type { Caller } from '../auth/caller.ts'
import { rolesOf } from '../auth/caller.ts'
import { QuireError } from '../errors.ts'

export type Letter = 'c' | 'r' | 'u' | 'd'

/** 'any': every document; 'own': only documents whose _owner_id is the caller; 'none'. */
export type Access = 'any' | 'own' | 'none'

const LETTER_NAMES: Record<Letter, string> = { c: 'create', r: 'read', u: 'update', d: 'delete' }

/** The letters a role holds in `perms` (none for names that are not the perms' own keys, e.g. "constructor"). */
function lettersOf(perms: Record<string, string>, role: string): string {
  return Object.hasOwn(perms, role) ? perms[role] : ''
}

export function accessTo(model: Model, caller: Caller, letter: Letter): Access {
  if (caller.admin) return 'any'
  if (rolesOf(caller).some(role => role !== 'owner' && lettersOf(model.perms, role).includes(letter))) return 'any'
  if (caller.userId && lettersOf(model.perms, 'owner').includes(letter)) return 'own'
  return 'none'
}

/** The error for a caller without access: 401 when anonymous, 403 when logged in. */
function deniedError(model: Model, caller: Caller, letter: Letter): QuireError {
  return caller.userId
    ? new QuireError('FORBIDDEN', `Not allowed to ${LETTER_NAMES[letter]} ${model.name} documents`)
    : new QuireError('AUTH_REQUIRED', `Log in to ${LETTER_NAMES[letter]} ${model.name} documents`)
}

/** Throws 401 (anonymous) or 403 (logged in) when the caller has no access at all. */
export function requireAccess(model: Model, caller: Caller, letter: Letter): Access {
  const access = accessTo(model, caller, letter)
  if (access === 'none') throw deniedError(model, caller, letter)
  return access
}

/** Throws 401 (anonymous) or 403 (logged in) unless the caller is an admin. */
export function requireAdmin(caller: Caller, action: string): void {
  if (caller.admin) return
  throw caller.userId
    ? new QuireError('FORBIDDEN', `Only an admin can ${action}`)
    : new QuireError('AUTH_REQUIRED', `You are not logged in: log in as an admin to ${action}`)
}
