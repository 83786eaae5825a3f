// One attack of the one-against-all scenario, in a process of its own, so that its load does not
// slow the suite's reader (whose latency is judged): reads its spec (name, AttackSpec) from
// RELIABILITY_ATTACK, attacks for spec.seconds, prints what it did as one JSON line and exits,
// leaving every connection it held closed.
import type { AttackName } from './options.ts'
import type { Attack, AttackCounts, AttackSpec } from './attacks/raw-socket.ts'
import { websocketFlood } from './attacks/websocket-flood.ts'
import { pipelining } from './attacks/pipelining.ts'
import { unfinishedBodies } from './attacks/unfinished-bodies.ts'
import { streamExhaustion } from './attacks/stream-exhaustion.ts'
import { pinnedReads } from './attacks/pinned-reads.ts'
import { bcryptWork } from './attacks/bcrypt-work.ts'

const ATTACKS: Record<AttackName, Attack> = {
  'websocket-flood': websocketFlood,
  pipelining,
  'unfinished-bodies': unfinishedBodies,
  'stream-exhaustion': streamExhaustion,
  'pinned-reads': pinnedReads,
  'bcrypt-work': bcryptWork
}

const { name, ...spec } = JSON.parse(process.env.RELIABILITY_ATTACK ?? '{}') as AttackSpec & { name: AttackName }
const counts: AttackCounts = {}
const endsAt = Date.now() + spec.seconds * 1000
const over = new Promise<void>(resolve => setTimeout(resolve, spec.seconds * 1000))
await ATTACKS[name]({ spec, counts, running: () => Date.now() < endsAt, over })
process.stdout.write(`${JSON.stringify(counts)}\n`)
process.exit(0)
