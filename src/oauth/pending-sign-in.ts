// A sign-in between /login/oauth/{provider} and the provider's callback: its state, PKCE code
// verifier and nonce, sealed (AES-256-GCM under a key derived from the service secret) into a
// cookie of the browser that started it. The callback accepts only the state of that browser's
// cookie, so a callback URL made in another browser (login CSRF, a fixed state) fails.
import { randomNonce, randomPKCECodeVerifier, randomState } from 'openid-client'
import { seal, unseal } from '../auth/secrets.ts'

export interface PendingSignIn {
  provider: string
  state: string
  verifier: string
  nonce: string
  /** When it stops being accepted (ms since the epoch). */
  expires: number
}

/** The cookie's name, and how long a sign-in may take at the provider. */
export const PENDING_COOKIE = 'quire_oauth'
const PENDING_MS = 10 * 60_000
const CALLBACK_PATH = '/login/oauth/callback/'

export function newPendingSignIn (provider: string, now: number): PendingSignIn {
  return { provider, state: randomState(), verifier: randomPKCECodeVerifier(), nonce: randomNonce(), expires: now + PENDING_MS }
}

/** The Set-Cookie header holding `pending` (only sent back to the callback routes; Secure over https). */
export function pendingCookie (key: Buffer, pending: PendingSignIn, secure: boolean): string {
  const attributes = `Path=${CALLBACK_PATH}; HttpOnly; SameSite=Lax; Max-Age=${PENDING_MS / 1000}${secure ? '; Secure' : ''}`
  return `${PENDING_COOKIE}=${seal(key, JSON.stringify(pending))}; ${attributes}`
}

/** The Set-Cookie header that removes the cookie (a callback uses it once, whatever its outcome). */
export function clearedPendingCookie (secure: boolean): string {
  return `${PENDING_COOKIE}=; Path=${CALLBACK_PATH}; HttpOnly; SameSite=Lax; Max-Age=0${secure ? '; Secure' : ''}`
}

/** The pending sign-in in a Cookie header, when it is there, sealed by `key`, for `provider` and not expired. */
export function readPendingSignIn (key: Buffer, cookieHeader: string | undefined, provider: string, now: number): PendingSignIn | undefined {
  const sealed = (cookieHeader ?? '').split(';').map(part => part.trim()).find(part => part.startsWith(`${PENDING_COOKIE}=`))?.slice(PENDING_COOKIE.length + 1)
  const text = sealed ? unseal(key, sealed) : undefined
  if (text === undefined) return undefined
  const pending = JSON.parse(text) as PendingSignIn
  return pending.provider === provider && pending.expires > now ? pending : undefined
}
