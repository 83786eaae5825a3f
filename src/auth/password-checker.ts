// Checks email/password pairs against the user model, for /login and Basic auth.
// Failed checks are throttled per account-and-address and per address before
// any bcrypt work (login-throttle.ts).
// Basic auth keeps a short cache of verified pairs (keyed by a keyed hash of the
// pair, holding the bcrypt hash they matched): a request still reads the user by
// its indexed email but costs no bcrypt comparison, and a changed password, admin
// flag or group list takes effect at once, on every process.
import { createHmac } from 'node:crypto'
import bcrypt from 'bcrypt'
import type { Doc } from '../engines/engine.ts'
import type { SystemStore } from '../permissions/system-access.ts'
import { callerFromUser, type Caller } from './caller.ts'
import { USER_MODEL } from './user-model.ts'
import type { Clock } from './clock.ts'
import type { LoginThrottle } from './login-throttle.ts'
import { QuireError } from '../errors.ts'

const CACHE_TTL_MS = 60_000
const CACHE_MAX = 10_000

export interface PasswordChecker {
  /** The user's record when email and password match; AUTH_FAILED (with the reason) or RATE_LIMITED otherwise. */
  verify: (email: string, password: string, ip: string) => Promise<Doc>
  /** Like verify, as a Caller; no bcrypt comparison when the pair matched the same hash recently. */
  callerFor: (email: string, password: string, ip: string) => Promise<Caller>
}

export interface PasswordCheckerOptions {
  engine: SystemStore
  secret: string
  clock: Clock
  /** Counts failed checks per account-and-address and per address. */
  throttle: LoginThrottle
}

/** The live user with this email (stored lower-case), password hash included. */
export async function findUserByEmail (engine: SystemStore, email: string): Promise<Doc | null> {
  return await engine.findRaw(USER_MODEL, { email: email.toLowerCase(), _deleted: false })
}

export function createPasswordChecker ({ engine, secret, clock, throttle }: PasswordCheckerOptions): PasswordChecker {
  const cache = new Map<string, { hash: string, expires: number }>()
  const keyOf = (email: string, password: string): string =>
    createHmac('sha256', secret).update(email.toLowerCase()).update('\0').update(password).digest('base64')

  async function verify (email: string, password: string, ip: string): Promise<Doc> {
    const fail = (reason: string): never => {
      throttle.failed(email, ip)
      throw new QuireError('AUTH_FAILED', 'Authentication failed', undefined, reason)
    }
    throttle.check(email, ip)
    const user = await findUserByEmail(engine, email)
    if (!user) return fail(`Incorrect email: ${email.slice(0, 254)}`)
    if (typeof user.password !== 'string' || !await bcrypt.compare(password, user.password)) return fail('Incorrect password')
    throttle.succeeded(email, ip)
    return user
  }

  async function cachedUser (key: string, email: string): Promise<Doc | undefined> {
    const hit = cache.get(key)
    if (!hit || hit.expires <= clock.now()) return undefined
    const user = await findUserByEmail(engine, email)
    if (user && user.password === hit.hash) return user
    cache.delete(key)
    return undefined
  }

  return {
    verify,
    callerFor: async (email, password, ip) => {
      const key = keyOf(email, password)
      const known = await cachedUser(key, email)
      if (known) return callerFromUser(known, 'basic')
      const user = await verify(email, password, ip)
      if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string)
      cache.set(key, { hash: user.password as string, expires: clock.now() + CACHE_TTL_MS })
      return callerFromUser(user, 'basic')
    }
  }
}
