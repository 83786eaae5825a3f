// Login links: JWTs for one purpose each. A `login` link (POST /login/getjwt)
// logs its user in (?jwt= on any request, or GET /login/jwt); a `reset` link
// (POST /login/recover) only authorizes POST /login/reset. Each carries a keyed
// digest of the user's password hash, so every link dies when the password
// changes (which makes a reset link single-use).
import { createHmac } from 'node:crypto'
import type { Doc } from '../../storage/engine.ts'
import type { SystemStore } from '../../permissions/system-access.ts'
import { QuireError } from '../../errors.ts'
import { isValidId } from '../../ids.ts'
import { deriveKey } from '../secrets.ts'
import { USER_MODEL } from '../users/user-model.ts'

/** Signs and verifies JWTs (the auth plugin builds one from @fastify/jwt and the clock). */
export interface JwtCodec {
  sign: (payload: Record<string, unknown>, ttlSeconds: number) => string
  /** The payload; throws when the signature is wrong or the token expired (code FAST_JWT_EXPIRED). */
  verify: (token: string) => Record<string, unknown>
}

type LinkPurpose = 'login' | 'reset'

export interface LoginLinks {
  /** A JWT standing for the user (a record with its password hash), good for `purpose` only. */
  mint: (user: Doc, purpose: LinkPurpose) => string
  /**
   * The live user a JWT minted for `purpose` stands for, password hash included; AUTH_FAILED when invalid, expired,
   * used up or minted for the other purpose.
   */
  resolve: (jwt: string, purpose: LinkPurpose) => Promise<Doc>
}

/** Why a link minted for the other purpose is refused where a link for `purpose` is wanted. */
const WRONG_PURPOSE: Record<LinkPurpose, string> = {
  login: 'This link only resets a password (POST /login/reset)',
  reset: 'This link logs in; it cannot reset a password: ask for a recovery link (POST /login/recover)'
}

function denied(reason: string): never {
  throw new QuireError('AUTH_FAILED', 'Authentication failed', undefined, reason)
}

export function createLoginLinks(engine: SystemStore, codec: JwtCodec, secret: string, ttlSeconds: number): LoginLinks {
  const stampKey = deriveKey(secret, 'login-link')
  const stampOf = (user: Doc): string =>
    createHmac('sha256', stampKey).update(String(user.password)).digest('base64url').slice(0, 22)

  function payloadOf(jwt: string, purpose: LinkPurpose): Record<string, unknown> {
    let payload: Record<string, unknown>
    try {
      payload = codec.verify(jwt)
    } catch (err) {
      return denied((err as { code?: string }).code === 'FAST_JWT_EXPIRED' ? 'JWT expired' : 'Invalid JWT')
    }
    if (payload.use !== purpose)
      return denied(payload.use === 'login' || payload.use === 'reset' ? WRONG_PURPOSE[purpose] : 'Invalid JWT')
    return payload
  }

  return {
    mint: (user, purpose) => codec.sign({ sub: user._id, pwd: stampOf(user), use: purpose }, ttlSeconds),
    resolve: async (jwt, purpose) => {
      const { sub, pwd } = payloadOf(jwt, purpose)
      if (!isValidId(sub)) return denied('Invalid JWT')
      const user = await engine.findRaw(USER_MODEL, { _id: sub, _deleted: false })
      if (!user) return denied('The user no longer exists')
      if (pwd !== stampOf(user)) return denied('JWT no longer valid: the password has changed')
      return user
    }
  }
}
