// The credential cache on its own: a remembered credential costs no lookup, `clear` forgets
// every one, a lookup that a clear overtook is not remembered, entries age out, and the cache
// holds at most its bound.
import t from 'tap'
import { createCredentialCache } from '../../../src/auth/credentials/credential-cache.ts'
import type { Caller } from '../../../src/auth/caller.ts'

const ALICE: Caller = { userId: 'a', admin: false, groups: [], via: 'apikey' }

function counted(until = Number.POSITIVE_INFINITY): {
  resolve: () => Promise<{ caller: Caller; until: number }>
  calls: () => number
} {
  let n = 0
  return {
    resolve: async () => {
      n++
      return { caller: ALICE, until }
    },
    calls: () => n
  }
}

t.test('remembered until cleared, aged out or pushed out', async t => {
  let now = 1000
  const cache = createCredentialCache({ maxEntries: 2, maxAgeMs: 500, clock: { now: () => now } })
  const key = counted()
  await cache.callerFor('apikey:k1', key.resolve)
  t.same(await cache.callerFor('apikey:k1', key.resolve), ALICE)
  t.equal(key.calls(), 1, 'the second request costs no lookup')
  cache.clear()
  await cache.callerFor('apikey:k1', key.resolve)
  t.equal(key.calls(), 2, 'after a clear the credential is looked up again')
  now += 501
  await cache.callerFor('apikey:k1', key.resolve)
  t.equal(key.calls(), 3, 'an entry older than maxAgeMs is looked up again')
  const token = counted(now + 10)
  await cache.callerFor('token:t1', token.resolve)
  now += 11
  await cache.callerFor('token:t1', token.resolve)
  t.equal(token.calls(), 2, 'a token is remembered no longer than it lives')
  await cache.callerFor('apikey:k2', counted().resolve)
  await cache.callerFor('apikey:k3', counted().resolve)
  await cache.callerFor('apikey:k1', key.resolve)
  t.equal(key.calls(), 4, 'the oldest entry made room for newer ones')
})

t.test('a lookup overtaken by a clear is not remembered', async t => {
  const cache = createCredentialCache({ maxEntries: 10, maxAgeMs: 60_000, clock: { now: Date.now } })
  let calls = 0
  await cache.callerFor('apikey:k', async () => {
    calls++
    cache.clear() // a revocation committed while the lookup ran
    return { caller: ALICE, until: Number.POSITIVE_INFINITY }
  })
  await cache.callerFor('apikey:k', async () => {
    calls++
    return { caller: ALICE, until: Number.POSITIVE_INFINITY }
  })
  t.equal(calls, 2, 'the next request looks the credential up again')
})

t.test('maxAgeMs 0 turns the cache off', async t => {
  const cache = createCredentialCache({ maxEntries: 10, maxAgeMs: 0, clock: { now: Date.now } })
  const key = counted()
  await cache.callerFor('apikey:k', key.resolve)
  await cache.callerFor('apikey:k', key.resolve)
  t.equal(key.calls(), 2)
})

/** A lookup that runs until `finish` is called, counting its calls. */
function held(outcome: () => Promise<{ caller: Caller; until: number }>): {
  resolve: () => Promise<{ caller: Caller; until: number }>
  calls: () => number
  finish: () => void
} {
  let n = 0
  let release!: () => void
  const gate = new Promise<void>(resolve => {
    release = resolve
  })
  return {
    resolve: async () => {
      n++
      await gate
      return await outcome()
    },
    calls: () => n,
    finish: () => release()
  }
}

t.test('concurrent requests with one credential share its lookup', async t => {
  const cache = createCredentialCache({ maxEntries: 10, maxAgeMs: 60_000, clock: { now: Date.now } })
  const key = held(async () => ({ caller: ALICE, until: Number.POSITIVE_INFINITY }))
  const requests = Array.from({ length: 50 }, async () => await cache.callerFor('basic:k', key.resolve))
  key.finish()
  t.same(await Promise.all(requests), Array(50).fill(ALICE))
  t.equal(key.calls(), 1, 'fifty requests, one lookup (one bcrypt comparison for Basic)')
})

t.test('when a shared lookup fails, each waiting request looks the credential up itself', async t => {
  const cache = createCredentialCache({ maxEntries: 10, maxAgeMs: 60_000, clock: { now: Date.now } })
  const key = held(async () => {
    throw new Error('wrong password')
  })
  const requests = Array.from({ length: 3 }, async () => await cache.callerFor('basic:k', key.resolve))
  key.finish()
  const outcomes = await Promise.allSettled(requests)
  t.same(
    outcomes.map(o => o.status),
    ['rejected', 'rejected', 'rejected']
  )
  t.equal(key.calls(), 3, "every failure is its own request's (its reason, its throttling)")
})

t.test('a request after a clear does not join a lookup that started before it', async t => {
  const cache = createCredentialCache({ maxEntries: 10, maxAgeMs: 60_000, clock: { now: Date.now } })
  const before = held(async () => ({ caller: ALICE, until: Number.POSITIVE_INFINITY }))
  const first = cache.callerFor('apikey:k', before.resolve)
  cache.clear() // the key was revoked while its lookup ran
  const BOB: Caller = { userId: 'b', admin: false, groups: [], via: 'apikey' }
  t.same(
    await cache.callerFor('apikey:k', async () => ({ caller: BOB, until: Number.POSITIVE_INFINITY })),
    BOB,
    'looked up afresh'
  )
  before.finish()
  t.same(await first, ALICE)
  t.equal(before.calls(), 1)
})
