// Remembers, for a short while, which caller an API key or bearer token stands for, so that a
// request with a known credential costs no database read. Keyed by the credential's digest, which
// the caller computes once for its own lookup too (no secret is kept); bounded in size and age; emptied at once by `clear` (any write to users or
// credentials, in this process or, through notices, in another: src/engines/credential-notices.ts).
import type { Caller } from './caller.ts'

export interface CredentialCache {
  /**
   * The caller the credential named by `key` (its kind and a digest of it: never the credential
   * itself) stands for: remembered, or resolved by `resolve` and remembered until `until` at most.
   */
  callerFor: (key: string, resolve: () => Promise<{ caller: Caller, until: number }>) => Promise<Caller>
  /** Forgets every credential (one was revoked, a user or their groups changed). */
  clear: () => void
}

export interface CredentialCacheOptions {
  maxEntries: number
  /** How long a credential is remembered at most (ms); 0 turns the cache off. */
  maxAgeMs: number
  now: () => number
}

interface Entry { caller: Caller, until: number }

export function createCredentialCache (options: CredentialCacheOptions): CredentialCache {
  const entries = new Map<string, Entry>()
  let generation = 0

  function remember (key: string, entry: Entry): void {
    if (entries.size >= options.maxEntries) entries.delete(entries.keys().next().value as string)
    entries.set(key, entry)
  }

  return {
    callerFor: async (key, resolve) => {
      if (options.maxAgeMs <= 0) return (await resolve()).caller
      const hit = entries.get(key)
      if (hit !== undefined && hit.until > options.now()) return hit.caller
      if (hit !== undefined) entries.delete(key)
      const started = generation
      const { caller, until } = await resolve()
      // A write that cleared the cache while this lookup ran may have revoked what it read.
      if (generation === started) remember(key, { caller, until: Math.min(until, options.now() + options.maxAgeMs) })
      return caller
    },
    clear: () => {
      generation++
      entries.clear()
    }
  }
}
