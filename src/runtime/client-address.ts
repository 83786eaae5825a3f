// Who is "one client" for every per-client bound (login throttle and endpoint buckets, expensive
// statements, CSV exports, change streams, WebSocket connections and messages, request bodies,
// password hashing): the address Fastify gives as request.ip (TRUST_PROXY decides whose
// X-Forwarded-For it believes), IPv4 as is, IPv6 by its /64 (one subscriber's block: a client
// may hold many of its addresses), an IPv4-mapped IPv6 as its IPv4. @fastify/rate-limit's
// normalizeIP does the parsing, as it does for the rate limits themselves.
import { normalizeIP } from '@fastify/rate-limit'

/** The key one client's address is counted under. */
export function clientAddress(ip: string): string {
  try {
    return normalizeIP(ip, 64)
  } catch {
    return ip.toLowerCase()
  }
}
