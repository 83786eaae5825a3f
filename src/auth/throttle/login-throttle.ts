// Slows password guessing without letting anyone lock an account's owner out.
// Failed password checks (/login and Basic alike) count per account-and-address
// pair and per address (an IPv6 address by its /64): an address over its budget
// waits, the owner's right password from any other address still works. Checks from
// one address run one at a time (address-turns.ts), so a burst cannot outrun the budget.
// Recovery emails count per account (every link sent stays valid for its hour).
import type { Clock } from '../clock.ts'
import { clientAddress } from '../../runtime/client-address.ts'
import { createRateLimiter } from './rate-limiter.ts'
import { countersFor } from './window-counters.ts'
import { createAddressTurns } from './address-turns.ts'

const WINDOW_MS = 15 * 60_000
/** An address may fail this many times the per-pair budget, over all accounts. */
export const ADDRESS_BUDGET_FACTOR = 5

export interface LoginThrottle {
  /** Runs a password check from `ip` after the address's earlier ones (RATE_LIMITED when too many wait). */
  inTurn: <T>(ip: string, check: () => Promise<T>) => Promise<T>
  /** Throws RATE_LIMITED when `ip` may not check a password of `email` now. */
  check: (email: string, ip: string) => Promise<void>
  /** Counts a failed password check of `email` from `ip`. */
  failed: (email: string, ip: string) => Promise<void>
  /** Forgets the pair's failures after the right password. */
  succeeded: (email: string, ip: string) => Promise<void>
  /** Counts one recovery email to `email`; throws RATE_LIMITED when the account had its share. */
  recoveryMail: (email: string) => Promise<void>
}

/**
 * `limit` failures per pair and ADDRESS_BUDGET_FACTOR times as many per address in 15 minutes
 * (0: no limits), counted on `clock`, or by the cluster primary for every worker.
 */
export function createLoginThrottle(limit: number, clock: Clock): LoginThrottle {
  const counters = countersFor(() => clock.now())
  const pairs = createRateLimiter(
    counters,
    'login-pair',
    limit,
    WINDOW_MS,
    'Too many failed logins to this account from your address'
  )
  const addresses = createRateLimiter(
    counters,
    'login-address',
    limit * ADDRESS_BUDGET_FACTOR,
    WINDOW_MS,
    'Too many failed logins from your address'
  )
  const mails = createRateLimiter(
    counters,
    'recovery-mail',
    limit,
    WINDOW_MS,
    'Recovery emails were sent to this account recently: use the latest one, or'
  )
  const pairKey = (email: string, ip: string): string => `${email.toLowerCase()}\n${clientAddress(ip)}`
  // As many may wait as one account's budget: a burst beyond it would be refused in its turn anyway.
  const turns = createAddressTurns(limit)

  return {
    inTurn: async (ip, check) => (limit <= 0 ? await check() : await turns.run(clientAddress(ip), check)),
    check: async (email, ip) => {
      await addresses.check(clientAddress(ip))
      await pairs.check(pairKey(email, ip))
    },
    failed: async (email, ip) => {
      await Promise.all([addresses.record(clientAddress(ip)), pairs.record(pairKey(email, ip))])
    },
    succeeded: async (email, ip) => {
      await pairs.reset(pairKey(email, ip))
    },
    recoveryMail: async email => {
      const account = email.toLowerCase()
      await mails.check(account)
      await mails.record(account)
    }
  }
}
