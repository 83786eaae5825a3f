// Who is "one client" for every per-client bound (login throttle and endpoint buckets, expensive
// statements, CSV exports, change streams and sockets): the address Fastify gives as request.ip
// (TRUST_PROXY decides whose X-Forwarded-For it believes), IPv4 as is, IPv6 by its /64 (one
// subscriber's block: a client may hold many of its addresses), an IPv4-mapped IPv6 as its IPv4.
// ip-address (the parser @fastify/rate-limit's own /64 keys use) reads the IPv6 forms.
import { isIPv6 } from 'node:net'
import { Address6 } from 'ip-address'

/** The key one client's address is counted under. */
export function clientAddress(ip: string): string {
  if (!isIPv6(ip)) return ip.toLowerCase()
  const address = new Address6(ip)
  if (address.is4()) return address.to4().correctForm()
  return `${new Address6(`${address.correctForm()}/64`).startAddress().correctForm()}/64`
}
