// Which user a provider's account signs in as: the user it was linked to before; else the live
// user whose email the provider says is verified (the account is linked to it from then on);
// else, when the provider's OAUTH_<NAME>_CREATE_USERS allows it, a new user with that email
// (and a random password nobody knows: a recovery link sets one). Nothing else signs in.
import { randomBytes } from 'node:crypto'
import type { Doc } from '../storage/engine.ts'
import type { SystemStore } from '../permissions/system-access.ts'
import { QuireError } from '../errors.ts'
import { newId } from '../ids.ts'
import { createUser } from '../auth/users/user-records.ts'
import { USER_MODEL } from '../auth/users/user-model.ts'
import { OAUTH_LINK_MODEL } from './oauth-link-model.ts'
import type { OAuthProvider } from './oauth-settings.ts'
import type { ProviderIdentity } from './provider-client.ts'
import { SignInFailure } from './sign-in-failure.ts'

/** The user to sign in and the link document (where the one-time sign-in token is kept). */
interface MatchedUser {
  userId: string
  linkId: string
}

async function liveUser(store: SystemStore, filter: Doc): Promise<Doc | null> {
  return await store.findRaw(USER_MODEL, { ...filter, _deleted: false })
}

/** The user a verified email names, created when the provider allows it. */
async function userByEmail(
  store: SystemStore,
  provider: OAuthProvider,
  identity: ProviderIdentity,
  bcryptRounds: number
): Promise<Doc> {
  if (identity.email === undefined) throw new SignInFailure('missing_data')
  if (!identity.emailVerified) throw new SignInFailure('email_not_verified')
  const email = identity.email.toLowerCase()
  const found = await liveUser(store, { email })
  if (found) return found
  if (!provider.createUsers) throw new SignInFailure('no_user')
  const fields: Doc = {
    email,
    password: randomBytes(32).toString('base64url'),
    ...(identity.name ? { name: identity.name.slice(0, 200) } : {})
  }
  try {
    return await createUser(store, fields, bcryptRounds)
  } catch (err) {
    // A deleted user keeps its email reserved; a concurrent sign-in may have created it.
    if (err instanceof QuireError && err.code === 'DUPLICATE_KEY')
      return (await liveUser(store, { email })) ?? failNoUser()
    if (err instanceof QuireError && err.code === 'VALIDATION_FAILED') throw new SignInFailure('missing_data', err)
    throw err
  }
}

function failNoUser(): never {
  throw new SignInFailure('no_user')
}

export async function matchUser(
  store: SystemStore,
  provider: OAuthProvider,
  identity: ProviderIdentity,
  bcryptRounds: number
): Promise<MatchedUser> {
  const key = { provider: provider.name, subject: identity.subject }
  const link = await store.findRaw(OAUTH_LINK_MODEL, key)
  if (link) {
    const user = await liveUser(store, { _id: link.user_id })
    return user ? { userId: user._id as string, linkId: link._id as string } : failNoUser()
  }
  const user = await userByEmail(store, provider, identity, bcryptRounds)
  const now = new Date().toISOString()
  try {
    const created = JSON.parse(
      await store.insert(OAUTH_LINK_MODEL, {
        _id: newId(),
        ...key,
        user_id: user._id,
        createdAt: now,
        updatedAt: now,
        __v: 0
      })
    ) as Doc
    return { userId: user._id as string, linkId: created._id as string }
  } catch (err) {
    // The same account's concurrent sign-in linked it first.
    if (!(err instanceof QuireError && err.code === 'DUPLICATE_KEY')) throw err
    return await matchUser(store, provider, identity, bcryptRounds)
  }
}
