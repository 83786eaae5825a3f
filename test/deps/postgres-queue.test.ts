// patches/postgres+3.4.9.patch: postgres.js's connection queue (the pool's open/busy/full lists)
// kept one dead slot per shifted item while it never ran empty, so under steady load its array
// grew without bound and remove() scanned ever more of it (select 1 at 50-way concurrency fell
// from 21,000 to 4,000 queries/s over 300,000 queries; patched it stays at 31,000-40,000).
// These tests count the queue's work and size (no timing) and check it against an array model.
import t from 'tap'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

type Queue<T> = { readonly length: number; push: (x: T) => T; shift: () => T | undefined; remove: (x: T) => T | null }
// The queue is internal to postgres.js (not in its exports map), so it is loaded by file path.
const root = dirname(createRequire(import.meta.url).resolve('postgres'))
const { default: Queue } = (await import(join(root, '..', '..', 'src', 'queue.js'))) as {
  default: <T>(initial?: T[]) => Queue<T>
}

function makeRng(seed: number): () => number {
  let s = seed
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648
    return s / 2147483648
  }
}

t.test('push, shift and remove behave like an array over long never-empty runs', async t => {
  const rng = makeRng(7)
  const queue = Queue<number>()
  const model: number[] = []
  let next = 0
  let mismatches = 0
  for (let step = 0; step < 200_000; step++) {
    const r = rng()
    if (r < 0.4 || model.length < 2) {
      queue.push(next)
      model.push(next++)
    } else if (r < 0.7) {
      if (queue.shift() !== model.shift()) mismatches++
    } else {
      const pick = model[Math.floor(rng() * model.length)]
      if (queue.remove(pick) !== pick) mismatches++
      model.splice(model.indexOf(pick), 1)
      if (queue.remove(pick) !== null) mismatches++ // gone: a second remove finds nothing
    }
    if (queue.length !== model.length) mismatches++
  }
  t.equal(mismatches, 0, 'every result and length matched the model')
  while (model.length) t.equal(queue.shift(), model.shift())
  t.equal(queue.length, 0)
  t.equal(queue.shift(), undefined, 'shifting an empty queue gives undefined')
  t.equal(queue.length, 0, 'and leaves it empty')
})

/** An array that records its largest length and how many slots indexOf looked at (slice keeps the class). */
class CountingArray<T> extends Array<T> {
  static scanned = 0
  static longest = 0
  override indexOf(x: T, from = 0): number {
    const at = super.indexOf(x, from)
    CountingArray.scanned += (at === -1 ? this.length : at + 1) - from
    return at
  }

  override push(...items: T[]): number {
    const length = super.push(...items)
    CountingArray.longest = Math.max(CountingArray.longest, length)
    return length
  }
}

t.test('a queue that never runs empty stays small and cheap (a pool under steady load)', async t => {
  const connections = CountingArray.from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]) as CountingArray<number>
  const busy = Queue(connections)
  const rounds = 100_000
  for (let i = 0; i < rounds; i++) {
    busy.push(busy.shift()!) // the next query goes to the least recently used busy connection
    const done = i % 10
    busy.remove(done) // one finishes and moves to the open list...
    busy.push(done) // ...and gets work again
  }
  t.equal(busy.length, 10)
  t.ok(CountingArray.longest < 100, `the array stays short (longest ${CountingArray.longest} slots for 10 items)`)
  t.ok(
    CountingArray.scanned < rounds * 20,
    `remove() looks at live slots only (${CountingArray.scanned} slots for ${rounds} removes)`
  )
})
