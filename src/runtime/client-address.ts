// Who is "one client" for every per-client bound (login throttle and endpoint buckets, expensive
// statements, CSV exports, change streams and sockets): the address Fastify gives as request.ip
// (TRUST_PROXY decides whose X-Forwarded-For it believes), IPv4 as is, IPv6 by its /64 (one
// subscriber's block: a client may hold many of its addresses), an IPv4-mapped IPv6 as its IPv4.
import { isIPv6 } from 'node:net'

/** The key one client's address is counted under. */
export function clientAddress(ip: string): string {
  if (!isIPv6(ip)) return ip.toLowerCase()
  const groups = ipv6Groups(ip)
  if (groups.slice(0, 5).every(g => g === 0) && groups[5] === 0xffff) {
    return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.')
  }
  return `${groups
    .slice(0, 4)
    .map(g => g.toString(16))
    .join(':')}::/64`
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, an IPv4 tail and a zone read). */
function ipv6Groups(ip: string): number[] {
  let text = ip.split('%')[0].toLowerCase()
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number)
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail] = text.split('::')
  const parts = (s: string | undefined): string[] => (s ? s.split(':') : [])
  const missing = tail === undefined ? 0 : 8 - parts(head).length - parts(tail).length
  return [...parts(head), ...Array<string>(missing).fill('0'), ...parts(tail)].map(g => parseInt(g, 16))
}
