// The fair share's bookkeeping (src/runtime/fair-share.ts), without a server: who runs at once, who
// waits and in which order, when a client counts as alone again, and the default share: the cores
// divided among the clients active.
import t from 'tap'
import { createFairShare, shareOfCores } from '../../src/runtime/fair-share.ts'

const options = { perClient: () => 2, maxWaiting: 3, quietMs: 1 }

/** Enters `n` requests of `client`; `started` records each one's name as it starts. */
function enterMany(share: ReturnType<typeof createFairShare>, client: string, n: number, started: string[]) {
  return Array.from({ length: n }, (_, i) => share.enter(client, () => started.push(`${client}${i}`)))
}

t.test('a client alone is not held back', async t => {
  const share = createFairShare(options)
  const started: string[] = []
  enterMany(share, 'a', 5, started)
  t.same(started, ['a0', 'a1', 'a2', 'a3', 'a4'])
})

t.test('with two clients active, each runs its share and the rest wait first come first served', async t => {
  const share = createFairShare(options)
  const started: string[] = []
  const b = share.enter('b', () => started.push('b'))
  const a = enterMany(share, 'a', 5, started)
  t.same(started, ['b', 'a0', 'a1'], 'a runs two; b was first')
  t.same(
    a.map(e => e.admitted),
    [true, true, true, true, true],
    'three wait'
  )
  t.notOk(share.enter('a', () => started.push('too many')).admitted, 'past maxWaiting: refused')
  share.enter('b', () => started.push('b again'))
  t.equal(started.at(-1), 'b again', 'the other client is not held up by the busy one')
  t.equal(a[3].leave(), true, 'a request that leaves while waiting never starts')
  t.equal(a[0].leave(), false)
  t.same(started.slice(4), ['a2'], 'one ended, the next in line starts')
  b.leave()
  a[1].leave()
  t.same(started.slice(5), ['a4'])
})

t.test('a client goes quiet after quietMs; then the other is alone again', async t => {
  const share = createFairShare(options)
  const started: string[] = []
  share.enter('b', () => started.push('b')).leave()
  t.equal(share.activeClients(), 1, 'b is still active just after its request ended')
  const a = enterMany(share, 'a', 4, started)
  t.same(started, ['b', 'a0', 'a1'])
  await new Promise(resolve => setTimeout(resolve, 20))
  t.equal(share.activeClients(), 1, 'b went quiet')
  a[0].leave()
  t.same(started.slice(3), ['a2', 'a3'], 'alone again: every waiting request starts')
})

t.test('the default share: the cores divided among the clients active, at least one', async t => {
  const onFour = shareOfCores(4)
  t.same([2, 3, 4, 5, 100].map(onFour), [2, 1, 1, 1, 1])
  t.equal(shareOfCores(1)(2), 1, 'one core: one request each')
  t.equal(shareOfCores(16)(3), 5)
})

t.test('a third client active shrinks the share; its going quiet gives it back', async t => {
  const share = createFairShare({ perClient: shareOfCores(4), maxWaiting: 10, quietMs: 1 })
  const started: string[] = []
  const b = share.enter('b', () => started.push('b'))
  const a = enterMany(share, 'a', 4, started)
  t.same(started, ['b', 'a0', 'a1'], 'two clients on four cores: two each')
  share.enter('c', () => started.push('c')).leave()
  a[0].leave()
  t.same(started.slice(3), ['c'], 'three clients: one each, so a running two starts none when one ends')
  await new Promise(resolve => setTimeout(resolve, 20))
  a[1].leave()
  t.same(started.slice(4), ['a2', 'a3'], 'c went quiet: two each again')
  b.leave()
})
