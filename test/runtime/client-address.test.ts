// The one notion of "a client": IPv4 as is, IPv6 by its /64, IPv4-mapped IPv6 as IPv4.
import t from 'tap'
import { clientAddress } from '../../src/runtime/client-address.ts'

const SAME: Array<[string, string, string]> = [
  ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::ff', 'two addresses of one /64'],
  ['2001:DB8::1', '2001:db8:0:0:ffff:ffff:ffff:fffe', 'compressed and upper case, one /64'],
  ['::ffff:198.51.100.9', '198.51.100.9', 'IPv4-mapped IPv6 is its IPv4']
]
const DIFFERENT: Array<[string, string, string]> = [
  ['2001:db8:1:2::1', '2001:db8:1:3::1', 'neighbouring /64s'],
  ['203.0.113.7', '203.0.113.8', 'two IPv4 addresses'],
  ['::1', '2001:db8::1', 'loopback and another /64']
]

t.equal(clientAddress('203.0.113.7'), '203.0.113.7', 'IPv4 as is')
for (const [a, b, what] of SAME) t.equal(clientAddress(a), clientAddress(b), what)
for (const [a, b, what] of DIFFERENT) t.not(clientAddress(a), clientAddress(b), what)
t.equal(clientAddress('not an address'), 'not an address', 'what is not an address is its own client')
