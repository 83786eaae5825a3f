// Login links: JWTs that log a user in through a URL (?jwt= on any request, or
// GET /login/jwt) and authorize a password reset. Each carries a keyed digest of
// the user's password hash, so every link dies when the password changes (which
// makes a reset link single-use).
import { createHmac } from 'node:crypto'
import type { Doc } from '../engines/engine.ts'
import type { SystemStore } from '../permissions/system-access.ts'
import { QuireError } from '../errors.ts'
import { isValidId } from '../ids.ts'
import { deriveKey } from './secrets.ts'
import { USER_MODEL } from './user-model.ts'

/** Signs and verifies JWTs (the auth plugin builds one from @fastify/jwt and the clock). */
export interface JwtCodec {
  sign: (payload: Record<string, unknown>, ttlSeconds: number) => string
  /** The payload; throws when the signature is wrong or the token expired (code FAST_JWT_EXPIRED). */
  verify: (token: string) => Record<string, unknown>
}

export interface LoginLinks {
  /** A JWT standing for the user (a record with its password hash). */
  mint: (user: Doc) => string
  /** The live user a JWT stands for, password hash included; AUTH_FAILED when invalid, expired or used up. */
  resolve: (jwt: string) => Promise<Doc>
}

function denied (reason: string): never {
  throw new QuireError('AUTH_FAILED', 'Authentication failed', undefined, reason)
}

export function createLoginLinks (engine: SystemStore, codec: JwtCodec, secret: string, ttlSeconds: number): LoginLinks {
  const stampKey = deriveKey(secret, 'login-link')
  const stampOf = (user: Doc): string => createHmac('sha256', stampKey).update(String(user.password)).digest('base64url').slice(0, 22)

  function payloadOf (jwt: string): Record<string, unknown> {
    try {
      return codec.verify(jwt)
    } catch (err) {
      return denied((err as { code?: string }).code === 'FAST_JWT_EXPIRED' ? 'JWT expired' : 'Invalid JWT')
    }
  }

  return {
    mint: (user) => codec.sign({ sub: user._id, pwd: stampOf(user) }, ttlSeconds),
    resolve: async (jwt) => {
      const { sub, pwd } = payloadOf(jwt)
      if (!isValidId(sub)) return denied('Invalid JWT')
      const user = await engine.findRaw(USER_MODEL, { _id: sub, _deleted: false })
      if (!user) return denied('The user no longer exists')
      if (pwd !== stampOf(user)) return denied('JWT no longer valid: the password has changed')
      return user
    }
  }
}
