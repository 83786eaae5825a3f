// A sign-in between /login/oauth/{provider} and the provider's callback: its state, PKCE code
// verifier and nonce, sealed (AES-256-GCM under a key derived from the service secret) into a
// cookie of the browser that started it. The callback accepts only the state of that browser's
// cookie, so a callback URL made in another browser (login CSRF, a fixed state) fails. Over https
// the cookie is `__Host-` prefixed (Secure, Path=/, no Domain), so that a sibling subdomain cannot
// plant one of its own in the browser (cookie tossing).
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

/** How long a sign-in may take at the provider. */
const PENDING_MS = 10 * 60_000

/**
 * The cookie's name and attributes: `__Host-` over https; over plain http (a developer's machine) only the callbacks
 * get it.
 */
function cookieOf(secure: boolean): { name: string; attributes: string } {
  return secure
    ? { name: '__Host-quire_oauth', attributes: 'Path=/; HttpOnly; SameSite=Lax; Secure' }
    : { name: 'quire_oauth', attributes: 'Path=/login/oauth/callback/; HttpOnly; SameSite=Lax' }
}

export function newPendingSignIn(provider: string, now: number): PendingSignIn {
  return {
    provider,
    state: randomState(),
    verifier: randomPKCECodeVerifier(),
    nonce: randomNonce(),
    expires: now + PENDING_MS
  }
}

/** The Set-Cookie header holding `pending`. */
export function pendingCookie(key: Buffer, pending: PendingSignIn, secure: boolean): string {
  const { name, attributes } = cookieOf(secure)
  return `${name}=${seal(key, JSON.stringify(pending))}; ${attributes}; Max-Age=${PENDING_MS / 1000}`
}

/** The Set-Cookie header that removes the cookie (a callback uses it once, whatever its outcome). */
export function clearedPendingCookie(secure: boolean): string {
  const { name, attributes } = cookieOf(secure)
  return `${name}=; ${attributes}; Max-Age=0`
}

/** The pending sign-in in a Cookie header, when it is there, sealed by `key`, for `provider` and not expired. */
export function readPendingSignIn(
  key: Buffer,
  cookieHeader: string | undefined,
  provider: string,
  now: number,
  secure: boolean
): PendingSignIn | undefined {
  const { name } = cookieOf(secure)
  const sealed = (cookieHeader ?? '')
    .split(';')
    .map(part => part.trim())
    .find(part => part.startsWith(`${name}=`))
    ?.slice(name.length + 1)
  const text = sealed ? unseal(key, sealed) : undefined
  if (text === undefined) return undefined
  const pending = JSON.parse(text) as PendingSignIn
  return pending.provider === provider && pending.expires > now ? pending : undefined
}
