// WebSocket messages per client (src/runtime/client-address.ts), over all its connections: a
// token bucket of `burst` messages refilled at `perSecond`. Found by an outside review: six
// connections sending `ping` as fast as they could (4.4 M messages in 30 s) kept the event loop
// so busy that every other client's reads were shed with 503 for the whole flood. A client's
// bucket lives only while it has a connection open, so a client that leaves costs nothing.
export interface MessageRate {
  /** Counts a connection of `client` open; the returned function counts it closed. */
  open: (client: string) => () => void
  /** Takes one message from `client`'s budget: false when it is used up. */
  take: (client: string) => boolean
}

interface Bucket {
  tokens: number
  at: number
  connections: number
}

export function createMessageRate(perSecond: number, burst: number, now: () => number = Date.now): MessageRate {
  const buckets = new Map<string, Bucket>()
  return {
    open: client => {
      let bucket = buckets.get(client)
      if (bucket === undefined) buckets.set(client, (bucket = { tokens: burst, at: now(), connections: 0 }))
      bucket.connections++
      const held = bucket
      return () => {
        if (--held.connections === 0 && buckets.get(client) === held) buckets.delete(client)
      }
    },
    take: client => {
      const bucket = buckets.get(client)
      if (bucket === undefined) return false
      const at = now()
      bucket.tokens = Math.min(burst, bucket.tokens + ((at - bucket.at) * perSecond) / 1000)
      bucket.at = at
      if (bucket.tokens < 1) return false
      bucket.tokens--
      return true
    }
  }
}
