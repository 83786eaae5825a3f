// Decides what a caller may do with a model, from the model's perms:
// roles (admin, owner, user, all, named groups) -> letters c, r, u, d.
// No perms -> admins only; deny by default.
import type { Model } from '../models/model-definition.ts'
import type { Caller } from './caller.ts'
import { rolesOf } from './caller.ts'
import { QuireError } from '../errors.ts'
import type { Filter } from '../query/types.ts'

export type Letter = 'c' | 'r' | 'u' | 'd'

/** 'any': every document; 'own': only documents whose _owner_id is the caller; 'none'. */
export type Access = 'any' | 'own' | 'none'

export function accessTo (model: Model, caller: Caller, letter: Letter): Access {
  if (caller.admin) return 'any'
  const perms = model.perms
  if (rolesOf(caller).some(role => role !== 'owner' && perms[role]?.includes(letter))) return 'any'
  if (caller.userId && perms.owner?.includes(letter)) return 'own'
  return 'none'
}

/** Throws 401 (anonymous) or 403 (logged in) when the caller has no access at all. */
export function requireAccess (model: Model, caller: Caller, letter: Letter): Access {
  const access = accessTo(model, caller, letter)
  if (access === 'none') {
    throw caller.userId
      ? new QuireError('FORBIDDEN', `Not allowed to ${LETTER_NAMES[letter]} ${model.name} documents`)
      : new QuireError('AUTH_REQUIRED', `Log in to ${LETTER_NAMES[letter]} ${model.name} documents`)
  }
  return access
}

/** Throws 401 (anonymous) or 403 (logged in) unless the caller is an admin. */
export function requireAdmin (caller: Caller, action: string): void {
  if (caller.admin) return
  throw caller.userId
    ? new QuireError('FORBIDDEN', `Only an admin can ${action}`)
    : new QuireError('AUTH_REQUIRED', `Log in as an admin to ${action}`)
}

/** The filter that narrows an 'own' access to the caller's documents ({} for 'any'). */
export function ownerFilter (access: Access, caller: Caller): Filter {
  return access === 'own' ? { _owner_id: caller.userId } : {}
}

const LETTER_NAMES: Record<Letter, string> = { c: 'create', r: 'read', u: 'update', d: 'delete' }
