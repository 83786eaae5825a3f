// Who is making a request, as the permission checks see it, and how they proved
// it (`via`): the one home of the rules that depend on the kind of credential.
import type { Doc } from '../storage/engine.ts'
import { QuireError } from '../errors.ts'

/**
 * How a caller proved who they are: `basic` (email and password in this request), `bearer` (a
 * token from a password login), `apikey`, or `jwt` (a login link: `?jwt=`, or a token of a session
 * opened with one at GET /login/jwt).
 */
export type Via = 'basic' | 'bearer' | 'apikey' | 'jwt'

export interface Caller {
  /** The user's _id; undefined for anonymous requests. */
  userId?: string
  email?: string
  admin: boolean
  groups: string[]
  /** The credential the caller came with; undefined for anonymous requests. */
  via?: Via
}

export const ANONYMOUS: Caller = Object.freeze({ admin: false, groups: [] as string[] }) as Caller

/** Role names of perms; a group cannot be called one of these. */
export const ROLE_NAMES = ['admin', 'owner', 'user', 'all']

/** The caller a user record stands for (its current admin flag and groups), authenticated `via`. */
export function callerFromUser(user: Doc, via: Via): Caller {
  return {
    userId: user._id as string,
    email: user.email as string,
    admin: user.admin === true,
    groups: Array.isArray(user.groups) ? user.groups.filter(g => typeof g === 'string' && !ROLE_NAMES.includes(g)) : [],
    via
  }
}

/** The roles a caller holds, as named in a model's perms ("owner" is decided per document). */
export function rolesOf(caller: Caller): string[] {
  if (!caller.userId) return ['all']
  return ['all', 'user', ...(caller.admin ? ['admin'] : []), ...caller.groups]
}

/**
 * Credentials are minted, rotated, read and changed only by a caller who logged in with a password
 * or holds the API key: a login link (one hour, possibly forwarded) logs in, nothing more.
 * Throws 403 for callers that came with a login link.
 */
export function refuseLoginLinks(caller: Caller, action: string): void {
  if (caller.via === 'jwt')
    throw new QuireError('FORBIDDEN', `A login link cannot ${action}: log in with your password`)
}
