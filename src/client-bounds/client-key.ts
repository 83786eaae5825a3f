// The one notion of "a client" that every per-client bound uses (login throttle, endpoint
// buckets, expensive statements, change streams, WebSocket connections, CSV exports, password
// hashing): the request's address as Fastify gives it (X-Forwarded-For only from TRUST_PROXY's
// proxies), an IPv4 address as is, an IPv6 address by its /64, since one subscriber holds a
// whole /64 and would otherwise have 2^64 budgets.
import { normalizeIP } from '@fastify/rate-limit'

/** The key a client's budgets are counted under. */
export function clientKey (ip: string): string {
  try { return normalizeIP(ip) } catch { return ip }
}
