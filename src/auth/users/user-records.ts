// User records outside /api/user: finding a live user by id, the first admin
// (POST /setup and `quire admin create`) and password resets. Writes go through
// the same checks as POST/PUT /api/user (schema, lower-case email, bcrypt).
import type { Doc } from '../../storage/engine.ts'
import type { SystemStore } from '../../permissions/system-access.ts'
import { prepareCreate, prepareUpdate } from '../../documents/prepare-document.ts'
import { QuireError } from '../../errors.ts'
import { isValidId } from '../../ids.ts'
import type { Caller } from '../caller.ts'
import { revokeCredentials } from '../credentials/api-keys.ts'
import { CREDENTIAL_MODEL } from '../credentials/credential-model.ts'
import { USER_MODEL } from './user-model.ts'

/** The service itself, acting as an admin. */
const SYSTEM: Caller = { admin: true, groups: [] }

/**
 * The setup mark (in the credential store) names the admin the last setup created (its user_id is
 * `setup:<id>`, which matches no user's credential), so that two concurrent setups cannot both
 * succeed; once no user exists, the next setup claims it again.
 */
const SETUP_MARK = 'setup'

/** The live user with this id, password hash included; 400 for a malformed id, 404 when there is none. */
export async function findLiveUser(engine: SystemStore, id: string): Promise<Doc> {
  if (!isValidId(id)) throw new QuireError('INVALID_ID', 'A user id is 24 hexadecimal characters')
  const user = await engine.findRaw(USER_MODEL, { _id: id, _deleted: false })
  if (!user) throw new QuireError('DOCUMENT_NOT_FOUND', `No user with id ${id}`)
  return user
}

export async function createUser(engine: SystemStore, fields: Doc, bcryptRounds: number): Promise<Doc> {
  const doc = await prepareCreate({ model: USER_MODEL, body: fields, caller: SYSTEM, form: false, bcryptRounds })
  return JSON.parse(await engine.insert(USER_MODEL, doc)) as Doc
}

/** POST /setup: an admin, only while no user exists (409 otherwise). */
export async function createFirstAdmin(
  engine: SystemStore,
  email: string,
  password: string,
  bcryptRounds: number,
  name?: string
): Promise<Doc> {
  const conflict = new QuireError('CONFLICT', 'Setup is done: a user exists already, so log in as an admin')
  if ((await engine.count(USER_MODEL, {})) > 0) throw conflict
  const doc = await prepareCreate({
    model: USER_MODEL,
    body: { email, password, admin: true, ...(name !== undefined && { name }) },
    caller: SYSTEM,
    form: false,
    bcryptRounds
  })
  await claimSetupMark(engine, doc._id as string, conflict)
  return JSON.parse(await engine.insert(USER_MODEL, doc)) as Doc
}

/** Points the setup mark at `adminId`: one setup wins when several run at once, the others get `conflict`. */
async function claimSetupMark(engine: SystemStore, adminId: string, conflict: QuireError): Promise<void> {
  const mark = await engine.findRaw(CREDENTIAL_MODEL, { _id: SETUP_MARK })
  if (mark !== null) {
    // The users the previous setup made are gone: a conditional write lets one setup take the mark.
    if (
      (await engine.updateOne(
        CREDENTIAL_MODEL,
        { _id: SETUP_MARK, user_id: mark.user_id as string },
        { user_id: `${SETUP_MARK}:${adminId}` }
      )) === null
    )
      throw conflict
    return
  }
  try {
    await engine.insert(CREDENTIAL_MODEL, { _id: SETUP_MARK, user_id: `${SETUP_MARK}:${adminId}` })
  } catch (err) {
    throw err instanceof QuireError && err.code === 'DUPLICATE_KEY' ? conflict : err
  }
}

/**
 * Sets a new password for `user` (a record read with its hash), only if the hash is still the one
 * read: a reset link cannot be used twice. Ends the user's session and revokes the API key.
 */
export async function resetPassword(
  engine: SystemStore,
  user: Doc,
  password: string,
  bcryptRounds: number
): Promise<void> {
  const set = await prepareUpdate({ model: USER_MODEL, body: { password }, caller: SYSTEM, form: false, bcryptRounds })
  const updated = await engine.updateOne(USER_MODEL, { _id: user._id, _deleted: false, password: user.password }, set)
  if (updated === null)
    throw new QuireError(
      'AUTH_FAILED',
      'Authentication failed',
      undefined,
      'JWT no longer valid: the password has changed'
    )
  await revokeCredentials(engine, user._id as string)
}
