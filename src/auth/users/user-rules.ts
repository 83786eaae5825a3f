// What the built-in user model adds to document writes (called from
// src/documents): emails are stored lower-case, users own their own record,
// non-admins may change only their own name and password, changing one's own
// password needs the current one (compared on a password thread, bcrypt-pool.ts), login links
// change nothing but a name (and delete or restore no user), groups cannot be
// named like roles, and a new password or a deletion revokes the user's session
// and API key.
import type { Doc } from '../../storage/engine.ts'
import type { SystemStore } from '../../permissions/system-access.ts'
import type { Model } from '../../models/model-definition.ts'
import type { DocumentContext } from '../../documents/document-context.ts'
import type { Config } from '../../config.ts'
import { QuireError } from '../../errors.ts'
import { ROLE_NAMES, refuseLoginLinks, type Caller } from '../caller.ts'
import { revokeCredentials } from '../credentials/api-keys.ts'
import { createRateLimiter, type RateLimiter } from '../throttle/rate-limiter.ts'
import { countersFor } from '../throttle/window-counters.ts'
import { USER_MODEL } from './user-model.ts'
import { bcryptWork } from '../bcrypt-pool.ts'

/** Fields a non-admin may change in their own user record. */
const SELF_EDITABLE = ['name', 'password']

/**
 * Fields a caller that came with a login link may write in a user record: a link logs in, nothing
 * more. Not a password, nor an email (recovery mails a reset link there), nor a role or group, nor
 * a new user: each would turn a one-hour link into a lasting password or admin.
 */
const LINK_EDITABLE = ['name']

/** Wrong current passwords per account, per app (its config): LOGIN_RATE_LIMIT per 15 minutes. */
const wrongGuesses = new WeakMap<Config, RateLimiter>()

function isUserModel(model: Model): boolean {
  return model.builtIn === true && model.name === 'user'
}

/** Names of JavaScript's object machinery: never a group, whatever the perms of a model say. */
const OBJECT_NAMES = ['__proto__', 'constructor', 'prototype']

/**
 * A group name must not be a role name (a group "admin" would grant the admin letters) nor an object-machinery name.
 */
export function checkGroupNames(groups: unknown): void {
  if (!Array.isArray(groups)) return
  const reserved = groups.filter(g => ROLE_NAMES.includes(g as string) || OBJECT_NAMES.includes(g as string))
  if (reserved.length) {
    throw new QuireError(
      'VALIDATION_FAILED',
      `A group cannot be named ${reserved.join(', ')}: that is a reserved name`,
      [{ field: 'groups', message: `must not be one of ${[...ROLE_NAMES, ...OBJECT_NAMES].join(', ')}` }]
    )
  }
}

/**
 * The client's fields for a create or update, checked; user emails lower-cased. Other models' fields pass unchanged.
 */
export function applyUserRules(model: Model, caller: Caller, fields: Doc): Doc {
  if (!isUserModel(model)) return fields
  const refused = caller.admin ? [] : Object.keys(fields).filter(f => !SELF_EDITABLE.includes(f))
  if (refused.length)
    throw new QuireError(
      'FORBIDDEN',
      `Only an admin can change ${refused.slice(0, 5).join(', ').slice(0, 200)} (you may ` +
        `change ${SELF_EDITABLE.join(' and ')})`
    )
  if ('password' in fields) refuseLoginLinks(caller, 'set a password')
  const beyondLink = Object.keys(fields).filter(f => !LINK_EDITABLE.includes(f))
  if (beyondLink.length) refuseLoginLinks(caller, `change ${beyondLink.slice(0, 5).join(', ').slice(0, 200)} of a user`)
  checkGroupNames(fields.groups)
  return typeof fields.email === 'string' ? { ...fields, email: fields.email.toLowerCase() } : fields
}

/** Throws CURRENT_PASSWORD_REQUIRED unless `current` is the password of user `id`; wrong guesses are rate limited. */
async function verifyCurrentPassword(ctx: DocumentContext, id: string, current: unknown): Promise<void> {
  let guesses = wrongGuesses.get(ctx.config)
  if (!guesses)
    wrongGuesses.set(
      ctx.config,
      (guesses = createRateLimiter(countersFor(Date.now), 'current-password', ctx.config.loginRateLimit, 15 * 60_000))
    )
  await guesses.check(id)
  if (typeof current !== 'string' || current === '') {
    throw new QuireError(
      'CURRENT_PASSWORD_REQUIRED',
      'Changing your password needs your current password: send it as current_password'
    )
  }
  const user = await ctx.system.findRaw(USER_MODEL, { _id: id, _deleted: false })
  if (typeof user?.password !== 'string' || !(await bcryptWork.compare(current, user.password))) {
    await guesses.record(id)
    throw new QuireError('CURRENT_PASSWORD_REQUIRED', 'current_password is not your current password')
  }
}

/**
 * PUT /api/user/{id} with a new password: login links cannot change it; a caller changing their
 * own proves the current one (a Basic request just did; others send `current_password`); an admin
 * changing someone else's needs no proof. Returns the body without `current_password`.
 */
export async function checkPasswordChange(
  ctx: DocumentContext,
  model: Model,
  id: string,
  body: unknown
): Promise<unknown> {
  if (!isUserModel(model) || !body || typeof body !== 'object' || Array.isArray(body)) return body
  const { current_password: current, ...fields } = body as Doc
  if (!('password' in fields)) return fields
  refuseLoginLinks(ctx.caller, 'change a password')
  const own = ctx.caller.userId === id
  if (own && ctx.caller.via !== 'basic') await verifyCurrentPassword(ctx, id, current)
  return fields
}

/** A new user record is owned by the user itself, unless an admin set _owner_id; other documents pass unchanged. */
export function ownUserRecord(model: Model, doc: Doc, ownerGiven: boolean): Doc {
  return isUserModel(model) && !ownerGiven ? { ...doc, _owner_id: doc._id } : doc
}

/**
 * A login link deletes, permanently deletes, restores or gives away no user record (`action` names which: 'delete a
 * user').
 */
export function refuseLinkUserChange(model: Model, caller: Caller, action: string): void {
  if (isUserModel(model)) refuseLoginLinks(caller, action)
}

/** Bulk operations would bypass these rules (e.g. $set admin), so user records are written only through /api/user. */
export function refuseBulkUserWrites(model: Model): void {
  if (isUserModel(model)) throw new QuireError('FORBIDDEN', 'User records cannot be written in bulk: use /api/user')
}

/** After a user record was written: a new password or a deletion ends the user's session and revokes the API key. */
export async function afterUserWrite(engine: SystemStore, model: Model, id: string, set: Doc): Promise<void> {
  if (isUserModel(model) && ('password' in set || set._deleted === true)) await revokeCredentials(engine, id)
}
