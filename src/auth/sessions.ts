// Access tokens, refresh tokens and the permanent API key, kept as digests in the
// internal `_credential` model (one document per user). One session per user: a
// login or a refresh replaces the previous token pair; logout, a password change
// or deleting the user ends it. Every lookup is one indexed query that also
// fetches the user's current record (populate), so admin and group changes apply
// at once.
import type { Doc } from '../engines/engine.ts'
import { systemPopulate, type SystemStore } from '../permissions/system-access.ts'
import type { Filter } from '../query/types.ts'
import { QuireError } from '../errors.ts'
import { newId } from '../ids.ts'
import { callerFromUser, type Caller } from './caller.ts'
import type { Clock } from './clock.ts'
import { CREDENTIAL_MODEL } from './credential-model.ts'
import { USER_MODEL } from './user-model.ts'
import { PREFIX, deriveKey, digestOf, newCredential, seal, unseal } from './secrets.ts'

export interface SessionTokens {
  user_id: string
  token: string
  token_expires: string
  refresh_token: string
  refresh_token_expires: string
}

export interface LoginTokens extends SessionTokens { apikey: string }

export interface SessionStore {
  /** A new token pair for the user (the previous pair dies) and the user's API key. */
  login: (userId: string) => Promise<LoginTokens>
  /** Rotates a valid refresh token: a new pair; the presented refresh token stops working. */
  refresh: (refreshToken: string) => Promise<SessionTokens>
  callerForToken: (token: string) => Promise<Caller>
  callerForApiKey: (apikey: string) => Promise<Caller>
  /** Ends the user's session: the token and refresh token die. */
  end: (userId: string) => Promise<void>
}

export interface SessionOptions {
  engine: SystemStore
  clock: Clock
  secret: string
  tokenTtlSeconds: number
  refreshTokenTtlSeconds: number
  warn: (msg: string) => void
}

const USER_LINK = systemPopulate({ field: 'user_id', as: 'user', target: USER_MODEL, many: false, filter: { _deleted: false } })
const NO_SESSION = { token: null, token_expires: null, refresh: null, refresh_expires: null }

function denied (reason: string): never {
  throw new QuireError('AUTH_FAILED', 'Authentication failed', undefined, reason)
}

/** Ends a user's session (token and refresh token); the API key stays. */
export async function endSessions (engine: SystemStore, userId: string): Promise<void> {
  await engine.updateOne(CREDENTIAL_MODEL, { user_id: userId }, { ...NO_SESSION, updatedAt: new Date().toISOString() })
}

export function createSessionStore (options: SessionOptions): SessionStore {
  const { engine, clock } = options
  const sealKey = deriveKey(options.secret, 'apikey')
  const iso = (ms: number): string => new Date(ms).toISOString()

  function newPair (): { set: Doc, tokens: Omit<SessionTokens, 'user_id'> } {
    const now = clock.now()
    const token = newCredential('access')
    const refresh = newCredential('refresh')
    const tokenExpires = iso(now + options.tokenTtlSeconds * 1000)
    const refreshExpires = iso(now + options.refreshTokenTtlSeconds * 1000)
    return {
      set: { token: digestOf(token), token_expires: tokenExpires, refresh: digestOf(refresh), refresh_expires: refreshExpires, updatedAt: iso(now) },
      tokens: { token, token_expires: tokenExpires, refresh_token: refresh, refresh_token_expires: refreshExpires }
    }
  }

  /** Writes the pair into the user's credential document, creating it (and the API key) on first login. */
  async function storePair (userId: string, set: Doc, retried = false): Promise<Doc> {
    const updated = await engine.updateOne(CREDENTIAL_MODEL, { user_id: userId }, set)
    if (updated !== null) return JSON.parse(updated) as Doc
    const apikey = newCredential('apikey')
    const doc = { _id: newId(), user_id: userId, ...set, apikey: digestOf(apikey), apikey_sealed: seal(sealKey, apikey), createdAt: set.updatedAt, __v: 0 }
    try {
      return JSON.parse(await engine.insert(CREDENTIAL_MODEL, doc)) as Doc
    } catch (err) {
      if (retried || !(err instanceof QuireError && err.code === 'DUPLICATE_KEY')) throw err
      return await storePair(userId, set, true)
    }
  }

  /** The user's API key; a new one when the sealed copy cannot be opened (QUIRE_SECRET changed). */
  async function apikeyOf (userId: string, doc: Doc): Promise<string> {
    const key = typeof doc.apikey_sealed === 'string' ? unseal(sealKey, doc.apikey_sealed) : undefined
    if (key !== undefined && digestOf(key) === doc.apikey) return key
    options.warn(`the API key of user ${userId} could not be unsealed (was QUIRE_SECRET changed?): a new key was issued`)
    const fresh = newCredential('apikey')
    await engine.updateOne(CREDENTIAL_MODEL, { user_id: userId }, { apikey: digestOf(fresh), apikey_sealed: seal(sealKey, fresh) })
    return fresh
  }

  /** The credential document matching `filter`, with its live user under `user` (null when deleted). */
  async function findWithUser (filter: Filter): Promise<Doc | null> {
    const text = await engine.findOne(CREDENTIAL_MODEL, filter, [USER_LINK])
    return text === null ? null : JSON.parse(text) as Doc
  }

  /** Refuses an expired credential and purges it. */
  async function checkExpiry (doc: Doc, field: 'token' | 'refresh', reason: string): Promise<void> {
    const expires = Date.parse(doc[`${field}_expires`] as string)
    if (expires > clock.now()) return
    await engine.updateOne(CREDENTIAL_MODEL, { _id: doc._id, [field]: doc[field] }, { [field]: null, [`${field}_expires`]: null })
    denied(reason)
  }

  async function callerBy (field: 'token' | 'apikey', credential: string, what: string): Promise<Caller> {
    const doc = await findWithUser({ [field]: digestOf(credential) })
    if (!doc) return denied(`Invalid ${what}`)
    if (field === 'token') await checkExpiry(doc, 'token', 'Token expired')
    if (!doc.user) return denied('The user no longer exists')
    return callerFromUser(doc.user as Doc)
  }

  return {
    login: async (userId) => {
      const pair = newPair()
      const doc = await storePair(userId, pair.set)
      return { user_id: userId, apikey: await apikeyOf(userId, doc), ...pair.tokens }
    },
    refresh: async (refreshToken) => {
      if (!refreshToken.startsWith(PREFIX.refresh)) return denied('Not a refresh token')
      const digest = digestOf(refreshToken)
      const doc = await findWithUser({ refresh: digest })
      if (!doc) return denied('Invalid refresh token')
      await checkExpiry(doc, 'refresh', 'Refresh token expired')
      if (!doc.user) return denied('The user no longer exists')
      const pair = newPair()
      const rotated = await engine.updateOne(CREDENTIAL_MODEL, { _id: doc._id, refresh: digest }, pair.set)
      if (rotated === null) return denied('Invalid refresh token')
      return { user_id: doc.user_id as string, ...pair.tokens }
    },
    callerForToken: async (token) => {
      if (token.startsWith(PREFIX.refresh)) return denied('A refresh token is accepted only by POST /refresh')
      return await callerBy('token', token, 'token')
    },
    callerForApiKey: async (apikey) => await callerBy('apikey', apikey, 'API key'),
    end: async (userId) => { await endSessions(engine, userId) }
  }
}
