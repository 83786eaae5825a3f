// Who is making a request, as the permission checks see it.
import type { Doc } from '../engines/engine.ts'

export interface Caller {
  /** The user's _id; undefined for anonymous requests. */
  userId?: string
  email?: string
  admin: boolean
  groups: string[]
}

export const ANONYMOUS: Caller = Object.freeze({ admin: false, groups: [] as string[] }) as Caller

/** Role names of perms; a group cannot be called one of these. */
export const ROLE_NAMES = ['admin', 'owner', 'user', 'all']

/** The caller a user record stands for (its current admin flag and groups). */
export function callerFromUser (user: Doc): Caller {
  return {
    userId: user._id as string,
    email: user.email as string,
    admin: user.admin === true,
    groups: Array.isArray(user.groups) ? user.groups.filter(g => typeof g === 'string' && !ROLE_NAMES.includes(g)) : []
  }
}

/** The roles a caller holds, as named in a model's perms ("owner" is decided per document). */
export function rolesOf (caller: Caller): string[] {
  if (!caller.userId) return ['all']
  return ['all', 'user', ...(caller.admin ? ['admin'] : []), ...caller.groups]
}
