// The one-time sign-in token that the browser carries from the provider's callback to the
// front end (`OAUTH_SUCCESS_URL?token=`, as JXP's redirect), exchanged at POST /login/oauth/token
// for what POST /login answers. It is kept as a digest in the account's link document, lives a
// minute, and works once: a URL that leaks (history, logs, a Referer) is worth nothing afterwards.
import type { Clock } from '../auth/clock.ts'
import { digestOf } from '../auth/secrets.ts'
import type { SystemStore } from '../permissions/system-access.ts'
import { QuireError } from '../errors.ts'
import { randomBytes } from 'node:crypto'
import { OAUTH_LINK_MODEL } from './oauth-link-model.ts'

const SIGN_IN_TOKEN_MS = 60_000
const PREFIX = 'qst_'

/** A new sign-in token for the link's user; it replaces any earlier one of that link. */
export async function issueSignInToken(store: SystemStore, linkId: string, clock: Clock): Promise<string> {
  const token = PREFIX + randomBytes(32).toString('base64url')
  const now = clock.now()
  await store.updateOne(
    OAUTH_LINK_MODEL,
    { _id: linkId },
    {
      handoff: digestOf(token),
      handoff_expires: new Date(now + SIGN_IN_TOKEN_MS).toISOString(),
      updatedAt: new Date(now).toISOString()
    }
  )
  return token
}

function refused(reason: string): never {
  throw new QuireError('AUTH_FAILED', 'Authentication failed', undefined, reason)
}

/** The user id of a live sign-in token, which stops working at once; a 401 otherwise. */
export async function redeemSignInToken(store: SystemStore, token: string, clock: Clock): Promise<string> {
  if (!token.startsWith(PREFIX)) return refused('Not a sign-in token')
  const digest = digestOf(token)
  const link = await store.findRaw(OAUTH_LINK_MODEL, { handoff: digest })
  if (!link) return refused('Invalid or used sign-in token')
  // Only the caller that clears it may use it: two exchanges racing get one session.
  const cleared = await store.updateOne(
    OAUTH_LINK_MODEL,
    { _id: link._id, handoff: digest },
    { handoff: null, handoff_expires: null, updatedAt: new Date(clock.now()).toISOString() }
  )
  if (cleared === null) return refused('Invalid or used sign-in token')
  if (Date.parse(link.handoff_expires as string) <= clock.now()) return refused('Sign-in token expired')
  return link.user_id as string
}
