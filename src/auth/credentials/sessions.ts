// Access tokens and refresh tokens, kept as digests in the internal
// `_credential` model (one document per user, which also holds the API key: see
// api-keys.ts). One session per user: a login or a refresh replaces the previous
// token pair; logout, a password change or deleting the user ends it. A session
// opened with a login link stays marked as such through refreshes (its callers
// come `via: 'jwt'`). Every lookup is one indexed query that also fetches the
// user's current record (populate), so admin and group changes apply at once; callers found are
// remembered by the credential cache, which every such change empties (credential-cache.ts).
import type { Doc } from '../../storage/engine.ts'
import { systemPopulate, type SystemStore } from '../../permissions/system-access.ts'
import type { Filter } from '../../query/types.ts'
import { QuireError } from '../../errors.ts'
import { callerFromUser, type Caller, type Via } from '../caller.ts'
import type { ApiKeys } from './api-keys.ts'
import type { Clock } from '../clock.ts'
import type { CredentialCache } from './credential-cache.ts'
import { CREDENTIAL_MODEL, NO_SESSION } from './credential-model.ts'
import { USER_MODEL } from '../users/user-model.ts'
import { PREFIX, digestOf, newCredential } from '../secrets.ts'

interface SessionTokens {
  user_id: string
  token: string
  token_expires: string
  refresh_token: string
  refresh_token_expires: string
}

interface LoginTokens extends SessionTokens {
  apikey: string
}

export interface SessionStore {
  /** A new token pair for the user (the previous pair dies) and the user's API key: for a password login. */
  login: (userId: string) => Promise<LoginTokens>
  /** A new token pair for a login link (GET /login/jwt): no API key, and its callers come via 'jwt'. */
  loginByLink: (userId: string) => Promise<SessionTokens>
  /** Rotates a valid refresh token: a new pair; the presented refresh token stops working. */
  refresh: (refreshToken: string) => Promise<SessionTokens>
  callerForToken: (token: string) => Promise<Caller>
  callerForApiKey: (apikey: string) => Promise<Caller>
  /**
   * The caller of a bearer token (`token`) or API key when the credential cache remembers it, without waiting;
   * undefined otherwise.
   */
  remembered: (field: 'token' | 'apikey', credential: string) => Caller | undefined
  /** Ends the user's session (logout): the token and refresh token die; the API key stays. */
  end: (userId: string) => Promise<void>
}

export interface SessionOptions {
  engine: SystemStore
  clock: Clock
  apiKeys: ApiKeys
  cache: CredentialCache
  tokenTtlSeconds: number
  refreshTokenTtlSeconds: number
}

const USER_LINK = systemPopulate({
  field: 'user_id',
  as: 'user',
  target: USER_MODEL,
  many: false,
  filter: { _deleted: false }
})

function denied(reason: string): never {
  throw new QuireError('AUTH_FAILED', 'Authentication failed', undefined, reason)
}

export function createSessionStore(options: SessionOptions): SessionStore {
  const { engine, clock, apiKeys } = options
  const iso = (ms: number): string => new Date(ms).toISOString()

  function newPair(byLink: boolean): { set: Doc; tokens: Omit<SessionTokens, 'user_id'> } {
    const now = clock.now()
    const token = newCredential('access')
    const refresh = newCredential('refresh')
    const tokenExpires = iso(now + options.tokenTtlSeconds * 1000)
    const refreshExpires = iso(now + options.refreshTokenTtlSeconds * 1000)
    return {
      set: {
        token: digestOf(token),
        token_expires: tokenExpires,
        refresh: digestOf(refresh),
        refresh_expires: refreshExpires,
        link_session: byLink,
        updatedAt: iso(now)
      },
      tokens: { token, token_expires: tokenExpires, refresh_token: refresh, refresh_token_expires: refreshExpires }
    }
  }

  /** The credential document matching `filter`, with its live user under `user` (null when deleted). */
  async function findWithUser(filter: Filter): Promise<Doc | null> {
    const text = await engine.findOne(CREDENTIAL_MODEL, filter, [USER_LINK])
    return text === null ? null : (JSON.parse(text) as Doc)
  }

  /** Refuses an expired credential and purges it. */
  async function checkExpiry(doc: Doc, field: 'token' | 'refresh', reason: string): Promise<void> {
    const expires = Date.parse(doc[`${field}_expires`] as string)
    if (expires > clock.now()) return
    await engine.updateOne(
      CREDENTIAL_MODEL,
      { _id: doc._id, [field]: doc[field] },
      { [field]: null, [`${field}_expires`]: null }
    )
    denied(reason)
  }

  /** The caller and, for a token, when it expires (API keys do not). */
  async function lookUp(
    field: 'token' | 'apikey',
    digest: string,
    what: string
  ): Promise<{ caller: Caller; until: number }> {
    const doc = await findWithUser({ [field]: digest })
    if (!doc) return denied(`Invalid ${what}`)
    if (field === 'token') await checkExpiry(doc, 'token', 'Token expired')
    if (!doc.user) return denied('The user no longer exists')
    const via: Via = field === 'apikey' ? 'apikey' : doc.link_session === true ? 'jwt' : 'bearer'
    const until = field === 'token' ? Date.parse(doc.token_expires as string) : Number.POSITIVE_INFINITY
    return { caller: callerFromUser(doc.user as Doc, via), until }
  }

  const cacheKey = (field: 'token' | 'apikey', digest: string): string => `${field}:${digest}`

  async function callerBy(field: 'token' | 'apikey', credential: string, what: string): Promise<Caller> {
    const digest = digestOf(credential)
    return await options.cache.callerFor(cacheKey(field, digest), () => lookUp(field, digest, what))
  }

  return {
    login: async userId => {
      const pair = newPair(false)
      const doc = await apiKeys.write(userId, pair.set)
      return { user_id: userId, apikey: await apiKeys.forLogin(userId, doc), ...pair.tokens }
    },
    loginByLink: async userId => {
      const pair = newPair(true)
      await apiKeys.write(userId, pair.set)
      return { user_id: userId, ...pair.tokens }
    },
    refresh: async refreshToken => {
      if (!refreshToken.startsWith(PREFIX.refresh)) return denied('Not a refresh token')
      const digest = digestOf(refreshToken)
      const doc = await findWithUser({ refresh: digest })
      if (!doc) return denied('Invalid refresh token')
      await checkExpiry(doc, 'refresh', 'Refresh token expired')
      if (!doc.user) return denied('The user no longer exists')
      const pair = newPair(doc.link_session === true)
      const rotated = await engine.updateOne(CREDENTIAL_MODEL, { _id: doc._id, refresh: digest }, pair.set)
      if (rotated === null) return denied('Invalid refresh token')
      return { user_id: doc.user_id as string, ...pair.tokens }
    },
    callerForToken: async token => {
      if (token.startsWith(PREFIX.refresh)) return denied('A refresh token is accepted only by POST /refresh')
      return await callerBy('token', token, 'token')
    },
    callerForApiKey: async apikey => await callerBy('apikey', apikey, 'API key'),
    remembered: (field, credential) => options.cache.remembered(cacheKey(field, digestOf(credential))),
    end: async userId => {
      await engine.updateOne(CREDENTIAL_MODEL, { user_id: userId }, { ...NO_SESSION, updatedAt: iso(clock.now()) })
    }
  }
}
