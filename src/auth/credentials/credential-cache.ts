// Remembers, for a short while, which caller an API key or bearer token stands for, so that a
// request with a known credential costs no database read. Keyed by the credential's digest, which
// the caller computes once for its own lookup too (no secret is kept); bounded in size and age; emptied at once by
// `clear` (any write to users or
// credentials, in this process or, through notices, in another: src/storage/postgres/credential-notices.ts).
// Concurrent requests with a credential not yet remembered share one lookup: fifty connections
// opening with the same Basic credential cost one bcrypt comparison, not fifty.
import type { Caller } from '../caller.ts'
import type { Clock } from '../clock.ts'

export interface CredentialCache {
  /**
   * The caller the credential named by `key` (its kind and a digest of it: never the credential
   * itself) stands for: remembered, or resolved by `resolve` and remembered until `until` at most.
   * While a lookup of `key` runs, other requests for it wait for its caller; when it fails, each
   * of them looks the credential up itself, so that every failure (its 401 reason, its throttling)
   * is its own request's.
   */
  callerFor: (key: string, resolve: () => Promise<{ caller: Caller; until: number }>) => Promise<Caller>
  /** The caller remembered for `key`, without waiting (the authentication step's path without a promise). */
  remembered: (key: string) => Caller | undefined
  /** Forgets every credential (one was revoked, a user or their groups changed), and every lookup under way. */
  clear: () => void
}

export interface CredentialCacheOptions {
  maxEntries: number
  /** How long a credential is remembered at most (ms); 0 turns the cache off. */
  maxAgeMs: number
  /** The auth components' clock (tests move it). */
  clock: Clock
}

interface Entry {
  caller: Caller
  until: number
}

export function createCredentialCache(options: CredentialCacheOptions): CredentialCache {
  const entries = new Map<string, Entry>()
  const lookups = new Map<string, Promise<Caller>>()
  let generation = 0

  function remember(key: string, entry: Entry): void {
    if (entries.size >= options.maxEntries) entries.delete(entries.keys().next().value as string)
    entries.set(key, entry)
  }

  function remembered(key: string): Caller | undefined {
    const hit = entries.get(key)
    if (hit === undefined) return undefined
    if (hit.until > options.clock.now()) return hit.caller
    entries.delete(key)
    return undefined
  }

  async function lookUp(key: string, resolve: () => Promise<Entry>): Promise<Caller> {
    const started = generation
    const { caller, until } = await resolve()
    // A write that cleared the cache while this lookup ran may have revoked what it read.
    if (generation === started)
      remember(key, { caller, until: Math.min(until, options.clock.now() + options.maxAgeMs) })
    return caller
  }

  async function sharedLookUp(key: string, resolve: () => Promise<Entry>): Promise<Caller> {
    const lookup = lookUp(key, resolve)
    lookups.set(key, lookup)
    try {
      return await lookup
    } finally {
      if (lookups.get(key) === lookup) lookups.delete(key)
    }
  }

  return {
    callerFor: async (key, resolve) => {
      if (options.maxAgeMs <= 0) return (await resolve()).caller
      const hit = remembered(key)
      if (hit !== undefined) return hit
      const running = lookups.get(key)
      if (running === undefined) return await sharedLookUp(key, resolve)
      const shared = await running.catch(() => undefined)
      return shared ?? (await lookUp(key, resolve))
    },
    remembered,
    clear: () => {
      generation++
      entries.clear()
      lookups.clear()
    }
  }
}
