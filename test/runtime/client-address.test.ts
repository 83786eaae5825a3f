// The one notion of "a client": IPv4 as is, IPv6 by its /64, IPv4-mapped IPv6 as IPv4.
import t from 'tap'
import { clientAddress } from '../../src/runtime/client-address.ts'

const CASES: Array<[string, string, string]> = [
  ['203.0.113.7', '203.0.113.7', 'IPv4 as is'],
  ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64', 'IPv6 by its /64'],
  ['2001:db8:1:2::ff', '2001:db8:1:2::/64', 'another address of the same /64'],
  ['2001:DB8::1', '2001:db8:0:0::/64', 'compressed and upper case'],
  ['::1', '0:0:0:0::/64', 'loopback'],
  ['::ffff:198.51.100.9', '198.51.100.9', 'IPv4-mapped'],
  ['fe80::1%eth0', 'fe80:0:0:0::/64', 'a zone is ignored']
]

for (const [ip, key, what] of CASES) t.equal(clientAddress(ip), key, what)
t.not(clientAddress('2001:db8:1:2::1'), clientAddress('2001:db8:1:3::1'), 'neighbouring /64s are different clients')
