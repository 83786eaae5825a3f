// Checks email/password pairs against the user model, for /login and Basic auth.
// Failed checks are throttled per account-and-address and per address before
// any bcrypt work, and one address's checks run one at a time (login-throttle.ts), on the
// low-priority password threads (bcrypt-pool.ts).
// Basic auth remembers verified pairs in the credential cache (keyed by a keyed hash
// of the pair): a request with a known pair costs no read and no bcrypt comparison,
// and a changed password, admin flag or group list empties that cache at once, on
// every process (credential-cache.ts).
import { hash } from 'node:crypto'
import type { Doc } from '../storage/engine.ts'
import type { SystemStore } from '../permissions/system-access.ts'
import { callerFromUser, type Caller } from './caller.ts'
import { USER_MODEL } from './users/user-model.ts'
import type { LoginThrottle } from './throttle/login-throttle.ts'
import type { CredentialCache } from './credentials/credential-cache.ts'
import { QuireError } from '../errors.ts'
import { deriveKey } from './secrets.ts'
import { bcryptWork } from './bcrypt-pool.ts'

export interface PasswordChecker {
  /** The user's record when email and password match; AUTH_FAILED (with the reason) or RATE_LIMITED otherwise. */
  verify: (email: string, password: string, ip: string) => Promise<Doc>
  /** Like verify, as a Caller; no read and no bcrypt comparison when the pair is remembered. */
  callerFor: (email: string, password: string, ip: string) => Promise<Caller>
  /**
   * The caller of a Basic header's credentials part (base64 of `email:password`) when the pair is
   * remembered, without waiting or decoding; undefined otherwise (then parse it and use callerFor).
   */
  remembered: (encodedPair: string) => Caller | undefined
}

export interface PasswordCheckerOptions {
  engine: SystemStore
  secret: string
  /** Counts failed checks per account-and-address and per address. */
  throttle: LoginThrottle
  cache: CredentialCache
}

/** The live user with this email (stored lower-case), password hash included. */
export async function findUserByEmail(engine: SystemStore, email: string): Promise<Doc | null> {
  return await engine.findRaw(USER_MODEL, { email: email.toLowerCase(), _deleted: false })
}

export function createPasswordChecker({ engine, secret, throttle, cache }: PasswordCheckerOptions): PasswordChecker {
  // The cache key of a pair: SHA-256 of a key derived from the service secret and the pair as a
  // Basic header carries it (base64 of `email:password`), so that a remembered header is found
  // without decoding it. One-shot hashing costs 0.3 us; an HMAC object per request cost 5 us.
  // A header whose base64 is not the canonical one is simply remembered under a key of its own;
  // callerFor keys the pair by its lower-cased email, so that letter-case variants of an email
  // (every one right, so never counted as a failure) cost one bcrypt comparison, not one each.
  const salt = deriveKey(secret, 'basic-cache').toString('base64')
  const keyOfEncoded = (encodedPair: string): string => `basic:${hash('sha256', salt + encodedPair, 'base64')}`
  const keyOf = (email: string, password: string): string =>
    keyOfEncoded(Buffer.from(`${email}:${password}`).toString('base64'))

  async function verify(email: string, password: string, ip: string): Promise<Doc> {
    const fail = async (reason: string): Promise<never> => {
      await throttle.failed(email, ip)
      throw new QuireError('AUTH_FAILED', 'Authentication failed', undefined, reason)
    }
    return await throttle.inTurn(ip, async () => {
      await throttle.check(email, ip)
      const user = await findUserByEmail(engine, email)
      if (!user) return await fail(`Incorrect email: ${email.slice(0, 254)}`)
      if (typeof user.password !== 'string' || !(await bcryptWork.compare(password, user.password)))
        return await fail('Incorrect password')
      await throttle.succeeded(email, ip)
      return user
    })
  }

  return {
    verify,
    callerFor: async (email, password, ip) =>
      await cache.callerFor(keyOf(email.toLowerCase(), password), async () => {
        const user = await verify(email, password, ip)
        return { caller: callerFromUser(user, 'basic'), until: Number.POSITIVE_INFINITY }
      }),
    remembered: encodedPair => cache.remembered(keyOfEncoded(encodedPair))
  }
}
