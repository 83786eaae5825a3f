// bcrypt work per client. Found by an outside review: creates of documents with a password field,
// and Basic headers with letter-case variants of the caller's own email (never failures, so never
// counted), ran bcrypt without a per-client bound and made other users' logins 3 to 20 times
// slower. Now a client's hashes run one at a time, and a pair's variants share one comparison.
import t, { type Test } from 'tap'
import { bcryptWork } from '../../src/auth/bcrypt-pool.ts'
import { ENGINES, basicAuth, createTestApp } from '../helpers/test-app.ts'

/** Counts calls of `bcryptWork[name]` and the most running at once, while the test runs. */
function watch(t: Test, name: 'hash' | 'compare'): { calls: number; most: number } {
  const seen = { calls: 0, most: 0 }
  let running = 0
  const original = bcryptWork[name] as (...args: unknown[]) => Promise<unknown>
  ;(bcryptWork as Record<string, unknown>)[name] = async (...args: unknown[]) => {
    seen.calls++
    seen.most = Math.max(seen.most, ++running)
    try {
      return await original(...args)
    } finally {
      running--
    }
  }
  t.teardown(() => {
    ;(bcryptWork as Record<string, unknown>)[name] = original
  })
  return seen
}

for (const engine of ENGINES) {
  t.test(`bcrypt per client on ${engine}`, async t => {
    const { app, admin } = await createTestApp(t, engine, { bcryptRounds: 6 })

    t.test("a client's password hashes run one at a time", async t => {
      const hashes = watch(t, 'hash')
      const create = (address: string, i: number) =>
        app.inject({
          method: 'POST',
          url: '/api/test',
          remoteAddress: address,
          headers: { authorization: admin },
          payload: { foo: `h${i}`, password: `secret-${i}` }
        })
      const replies = await Promise.all(
        Array.from({ length: 12 }, (_, i) => create('2001:db8:0:7::' + (i + 1).toString(16), i))
      )
      t.same(
        replies.map(r => r.statusCode),
        replies.map(() => 200),
        'all created'
      )
      t.equal(hashes.calls, 12)
      t.equal(hashes.most, 1, 'one /64: one hash at a time')
    })

    t.test('letter-case variants of a Basic email cost one comparison', async t => {
      const compares = watch(t, 'compare')
      const variants = [
        'admin@example.com',
        'ADMIN@example.com',
        'Admin@Example.com',
        'admin@EXAMPLE.com',
        'aDmIn@example.COM'
      ]
      for (const email of variants) {
        const res = await app.inject({
          url: '/api/user',
          headers: { authorization: basicAuth(email, 'admin-password') }
        })
        t.equal(res.statusCode, 200, email)
      }
      t.ok(compares.calls <= 1, `${compares.calls} comparison(s) for ${variants.length} variants`)
    })
  })
}
