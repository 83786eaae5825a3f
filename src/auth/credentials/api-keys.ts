// The permanent API key of each user, kept in the user's `_credential` document
// as a SHA-256 digest (what requests are looked up by) and a sealed copy (so that
// login can return it). Revoking replaces the digest by that of a random key
// nobody holds and drops the sealed copy, so the next login issues a new key;
// rotating issues the new key at once.
import type { Doc } from '../../storage/engine.ts'
import type { SystemStore } from '../../permissions/system-access.ts'
import { QuireError } from '../../errors.ts'
import { newId } from '../../ids.ts'
import { CREDENTIAL_MODEL, NO_SESSION } from './credential-model.ts'
import { deriveKey, digestOf, newCredential, seal, unseal } from '../secrets.ts'

export interface ApiKeys {
  /**
   * Merges `set` into the user's credential document, creating it (with a new API key) when missing; returns the
   * document.
   */
  write: (userId: string, set: Doc) => Promise<Doc>
  /**
   * The key a password login returns: the user's current one, or a new one when it was revoked or cannot be unsealed.
   */
  forLogin: (userId: string, doc: Doc) => Promise<string>
  /** A new key for the user, returned once; the previous one stops working at once. */
  rotate: (userId: string) => Promise<string>
}

/** Fields that make the stored key unusable (a unique digest nobody holds the key of) and unreturnable. */
function revokedKey(): Doc {
  return { apikey: digestOf(newCredential('apikey')), apikey_sealed: null }
}

/** Revokes the user's API key: it stops working at once, and the next login issues a new one. */
export async function revokeApiKey(engine: SystemStore, userId: string): Promise<void> {
  await engine.updateOne(
    CREDENTIAL_MODEL,
    { user_id: userId },
    { ...revokedKey(), updatedAt: new Date().toISOString() }
  )
}

/** Ends the user's session and revokes the API key (a new password, a deletion). */
export async function revokeCredentials(engine: SystemStore, userId: string): Promise<void> {
  await engine.updateOne(
    CREDENTIAL_MODEL,
    { user_id: userId },
    { ...NO_SESSION, ...revokedKey(), updatedAt: new Date().toISOString() }
  )
}

export function createApiKeys(engine: SystemStore, secret: string, warn: (msg: string) => void): ApiKeys {
  const sealKey = deriveKey(secret, 'apikey')
  const keyFields = (key: string): Doc => ({
    apikey: digestOf(key),
    apikey_sealed: seal(sealKey, key),
    updatedAt: new Date().toISOString()
  })

  async function write(userId: string, set: Doc, retried = false): Promise<Doc> {
    const updated = await engine.updateOne(CREDENTIAL_MODEL, { user_id: userId }, set)
    if (updated !== null) return JSON.parse(updated) as Doc
    const doc = {
      _id: newId(),
      user_id: userId,
      ...keyFields(newCredential('apikey')),
      ...set,
      createdAt: new Date().toISOString(),
      __v: 0
    }
    try {
      return JSON.parse(await engine.insert(CREDENTIAL_MODEL, doc)) as Doc
    } catch (err) {
      if (retried || !(err instanceof QuireError && err.code === 'DUPLICATE_KEY')) throw err
      return await write(userId, set, true)
    }
  }

  /** The key sealed in `doc`, when it opens and matches the stored digest. */
  const keyIn = (doc: Doc): string | undefined => {
    const key = typeof doc.apikey_sealed === 'string' ? unseal(sealKey, doc.apikey_sealed) : undefined
    return key !== undefined && digestOf(key) === doc.apikey ? key : undefined
  }

  async function forLogin(userId: string, doc: Doc, retried = false): Promise<string> {
    const key = keyIn(doc)
    if (key !== undefined) return key
    if (typeof doc.apikey_sealed === 'string')
      warn(`the API key of user ${userId} could not be unsealed (was QUIRE_SECRET changed?): a new key was issued`)
    const fresh = newCredential('apikey')
    // Only over the key just read: two logins racing after a revocation return the same new key.
    if ((await engine.updateOne(CREDENTIAL_MODEL, { user_id: userId, apikey: doc.apikey }, keyFields(fresh))) !== null)
      return fresh
    const current = await engine.findRaw(CREDENTIAL_MODEL, { user_id: userId })
    if (current === null || retried) return await rotate(userId)
    return await forLogin(userId, current, true)
  }

  async function rotate(userId: string): Promise<string> {
    const fresh = newCredential('apikey')
    await write(userId, keyFields(fresh))
    return fresh
  }

  return { write, forLogin, rotate }
}
