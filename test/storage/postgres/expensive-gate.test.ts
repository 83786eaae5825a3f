// Tests of the expensive-statement gate: slots overall and per client, round robin between
// clients, the 503 after a bounded wait, and waiters leaving when their client goes away.
import t from 'tap'
import { createExpensiveGate, type GateOptions } from '../../../src/storage/postgres/expensive-gate.ts'
import { runInRequestScope } from '../../../src/runtime/request-scope.ts'

/** A piece of work that runs until `finish` is called, recording when it started. */
function heldWork(log: string[], name: string): { work: () => Promise<string>; finish: () => void } {
  let finish = (): void => {}
  const done = new Promise<void>(resolve => {
    finish = resolve
  })
  return {
    work: async () => {
      log.push(name)
      await done
      return name
    },
    finish
  }
}

function gateWith(options: Partial<GateOptions>) {
  return createExpensiveGate({ slots: 2, perClient: 2, maxWaitMs: 60_000, maxWaiting: 100, ...options })
}

const inScope = <T>(client: string, work: () => T, signal = new AbortController().signal): T =>
  runInRequestScope({ client, signal }, work)
const settle = (): Promise<void> => new Promise(resolve => setImmediate(resolve))

t.test('no more than `slots` run at once; the next starts when one ends', async t => {
  const gate = gateWith({ slots: 2 })
  const log: string[] = []
  const held = ['a', 'b', 'c'].map(name => heldWork(log, name))
  const results = held.map((h, i) => inScope(`client${i}`, () => gate.run(h.work)))
  await settle()
  t.same(log, ['a', 'b'], 'two run, the third waits')
  held[0].finish()
  await settle()
  t.same(log, ['a', 'b', 'c'], 'the third starts when a slot frees')
  held[1].finish()
  held[2].finish()
  t.same(await Promise.all(results), ['a', 'b', 'c'])
})

t.test('one client holds at most `perClient` slots; others get the rest, in turn', async t => {
  const gate = gateWith({ slots: 3, perClient: 2 })
  const log: string[] = []
  const greedy = ['g1', 'g2', 'g3', 'g4'].map(name => heldWork(log, name))
  const polite = heldWork(log, 'p1')
  const runs = greedy.map(h => inScope('greedy', () => gate.run(h.work)))
  await settle()
  t.same(log, ['g1', 'g2'], 'the greedy client is held to two')
  runs.push(inScope('polite', () => gate.run(polite.work)))
  await settle()
  t.same(log, ['g1', 'g2', 'p1'], 'another client takes the free slot at once')
  polite.finish()
  await settle()
  t.same(log, ['g1', 'g2', 'p1'], "a free slot does not go past the greedy client's share")
  greedy[0].finish()
  await settle()
  t.same(log, ['g1', 'g2', 'p1', 'g3'])
  for (const h of greedy) h.finish()
  await Promise.all(runs)
})

t.test('a freed slot goes to the client let in least recently, and within a client to its oldest waiter', async t => {
  const gate = gateWith({ slots: 1, perClient: 1 })
  const log: string[] = []
  const held = new Map<string, ReturnType<typeof heldWork>>()
  const runs = [
    ['a', 'a1'],
    ['a', 'a2'],
    ['b', 'b1'],
    ['a', 'a3'],
    ['c', 'c1'],
    ['b', 'b2']
  ].map(([client, name]) => {
    held.set(name, heldWork(log, name))
    return inScope(client, () => gate.run(held.get(name)!.work))
  })
  // One runs at a time: finish each as soon as it started, in the order they started.
  for (let started = 0; started < runs.length; started++) {
    await settle()
    held.get(log[started])!.finish()
  }
  await Promise.all(runs)
  // b and c were never let in: b's waiter came first. Then a (let in before both), then round robin.
  t.same(log, ['a1', 'b1', 'c1', 'a2', 'b2', 'a3'])
})

t.test('waiting longer than maxWaitMs is a 503', async t => {
  const gate = gateWith({ slots: 1, maxWaitMs: 20 })
  const log: string[] = []
  const first = heldWork(log, 'first')
  const running = inScope('a', () => gate.run(first.work))
  await t.rejects(
    inScope('b', () => gate.run(async () => 'never')),
    { code: 'UNAVAILABLE', status: 503 }
  )
  first.finish()
  t.equal(await running, 'first')
  t.equal(await inScope('b', () => gate.run(async () => 'later')), 'later', 'the slot is free again')
})

t.test('too many waiting is a 503 at once', async t => {
  const gate = gateWith({ slots: 1, maxWaiting: 1 })
  const first = heldWork([], 'first')
  const running = inScope('a', () => gate.run(first.work))
  const queued = inScope('b', () => gate.run(async () => 'queued'))
  await t.rejects(
    inScope('c', () => gate.run(async () => 'refused')),
    { code: 'UNAVAILABLE' }
  )
  first.finish()
  t.same(await Promise.all([running, queued]), ['first', 'queued'])
})

t.test('a waiter whose client goes away leaves at once, with the abort reason', async t => {
  const gate = gateWith({ slots: 1 })
  const log: string[] = []
  const first = heldWork(log, 'first')
  const running = inScope('a', () => gate.run(first.work))
  const controller = new AbortController()
  const leaving = inScope(
    'b',
    () =>
      gate.run(async () => {
        log.push('leaver')
        return 'ran'
      }),
    controller.signal
  )
  controller.abort(new Error('client gone'))
  await t.rejects(leaving, { message: 'client gone' })
  first.finish()
  await running
  t.same(log, ['first'], 'the work of the client that left never ran')
})

t.test("work outside any request counts as the service's own client", async t => {
  const gate = gateWith({ slots: 1 })
  t.equal(await gate.run(async () => 'ok'), 'ok')
})
