// The credential cache across processes: two apps on one PostgreSQL database (two processes'
// worth of apps). A key or token that one app has remembered stops working there within one
// request after the other app revokes it (revoke, logout, password change, user delete;
// Basic pairs too),
// an admin change shows at once, and a remembered token still expires on time. A Basic header
// is remembered as sent: other forms of the pair are checked on their own. Requests go
// over HTTP, as a client's would: the next request reaches the other app after the answer.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { ENGINES, createTestApp, secondApp } from '../../helpers/test-app.ts'
import { TEST_SETTINGS, advanceClock, bearer, login } from '../../helpers/auth-helpers.ts'

type Headers = Record<string, string>

const origins = new WeakMap<FastifyInstance, string>()

/** The app's address, listening on loopback from the first request on. */
async function originOf(app: FastifyInstance): Promise<string> {
  let origin = origins.get(app)
  if (origin === undefined) {
    origin = await app.listen({ host: '127.0.0.1', port: 0 })
    origins.set(app, origin)
  }
  return origin
}

async function status(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  headers: Headers,
  payload?: object
): Promise<number> {
  const body = payload && JSON.stringify(payload)
  const res = await fetch((await originOf(app)) + url, {
    method,
    headers: { ...headers, ...(body && { 'content-type': 'application/json' }) },
    body
  })
  await res.arrayBuffer()
  return res.status
}

for (const engine of ENGINES) {
  t.test(`a credential remembered by one app dies at once when another revokes it (${engine})`, async t => {
    const { app: a, admin, createUser } = await createTestApp(t, engine, TEST_SETTINGS)
    const b = await secondApp(t, a, TEST_SETTINGS)
    const alice = await createUser('alice@example.com', 'alice-password')
    const own = `/api/user/${alice.id}`

    const first = await login(a, 'alice@example.com', 'alice-password')
    t.equal(await status(b, 'GET', own, { apikey: first.apikey }), 200, 'the key works on the other app')
    t.equal(await status(b, 'GET', own, { apikey: first.apikey }), 200, 'and again (remembered)')
    t.equal(await status(a, 'DELETE', `/users/${alice.id}/apikey`, bearer(first.token)), 200)
    t.equal(
      await status(b, 'GET', own, { apikey: first.apikey }),
      401,
      'revoked on one app: refused by the other at once'
    )

    t.equal(await status(b, 'GET', own, bearer(first.token)), 200, 'the token works on the other app')
    t.equal(await status(a, 'POST', '/login/logout', bearer(first.token)), 200)
    t.equal(
      await status(b, 'GET', own, bearer(first.token)),
      401,
      'logged out on one app: the token is refused by the other at once'
    )

    const second = await login(a, 'alice@example.com', 'alice-password')
    t.equal(
      await status(b, 'POST', `/users/${alice.id}/apikey`, { apikey: second.apikey }),
      200,
      'rotated on the other app'
    )
    t.equal(
      await status(a, 'GET', own, { apikey: second.apikey }),
      401,
      'the rotated key is refused by the first at once'
    )

    const third = await login(a, 'alice@example.com', 'alice-password')
    t.equal(await status(b, 'GET', own, { apikey: third.apikey }), 200)
    t.equal(await status(b, 'GET', own, bearer(third.token)), 200)
    t.equal(await status(b, 'GET', own, { authorization: alice.auth }), 200, 'Basic works on the other app')
    t.equal(
      await status(a, 'PUT', own, { authorization: admin }, { password: 'a-new-password' }),
      200,
      'an admin sets a new password'
    )
    t.equal(await status(b, 'GET', own, { apikey: third.apikey }), 401, 'a new password revokes the remembered key')
    t.equal(await status(b, 'GET', own, bearer(third.token)), 401, 'and the remembered token')
    t.equal(await status(b, 'GET', own, { authorization: alice.auth }), 401, 'and the remembered Basic pair')

    const bob = await createUser('bob@example.com', 'bob-password')
    const bobs = await login(a, 'bob@example.com', 'bob-password')
    t.equal(await status(b, 'GET', `/groups/${alice.id}`, { apikey: bobs.apikey }), 403, 'bob is no admin')
    t.equal(await status(a, 'PUT', `/api/user/${bob.id}`, { authorization: admin }, { admin: true }), 200)
    t.equal(
      await status(b, 'GET', `/groups/${alice.id}`, { apikey: bobs.apikey }),
      200,
      'made admin on one app: an admin on the other at once'
    )
    t.equal(await status(a, 'DELETE', `/api/user/${bob.id}`, { authorization: admin }), 200)
    t.equal(
      await status(b, 'GET', `/groups/${alice.id}`, { apikey: bobs.apikey }),
      401,
      'deleted on one app: refused by the other at once'
    )

    const fourth = await login(a, 'alice@example.com', 'a-new-password')
    t.equal(await status(b, 'GET', own, bearer(fourth.token)), 200)
    advanceClock(b, (b.config.tokenTtlSeconds + 1) * 1000)
    t.equal(await status(b, 'GET', own, bearer(fourth.token)), 401, 'a remembered token still expires on time')
  })

  t.test(
    `a remembered Basic header passes as sent; other forms of the pair are checked on their own (${engine})`,
    async t => {
      const { app, createUser } = await createTestApp(t, engine, TEST_SETTINGS)
      const alice = await createUser('alice@example.com', 'alice-password')
      const own = `/api/user/${alice.id}`
      const basic = (pair: string, unpadded = false): Headers => {
        const encoded = Buffer.from(pair).toString('base64') // 'alice@example.com:alice-password' ends in one '='
        return { authorization: `Basic ${unpadded ? encoded.replace(/=+$/, '') : encoded}` }
      }
      t.equal(await status(app, 'GET', own, basic('alice@example.com:alice-password')), 200)
      t.equal(await status(app, 'GET', own, basic('alice@example.com:alice-password')), 200, 'remembered')
      t.equal(
        await status(app, 'GET', own, basic('alice@example.com:alice-passwore')),
        401,
        'another password is refused'
      )
      t.equal(
        await status(app, 'GET', own, basic('alice@example.com:alice-password ')),
        401,
        'a password with a trailing space is another password'
      )
      t.equal(
        await status(app, 'GET', own, basic('Alice@Example.com:alice-password')),
        200,
        'the email in other letter cases'
      )
      t.equal(
        await status(app, 'GET', own, basic('alice@example.com:alice-password', true)),
        200,
        'base64 without its padding'
      )
      t.equal(
        await status(app, 'PUT', own, basic('Alice@Example.com:alice-password'), { password: 'a-new-password' }),
        200,
        'a new password, set with one form of the pair'
      )
      for (const headers of [
        basic('alice@example.com:alice-password'),
        basic('alice@example.com:alice-password', true)
      ]) {
        t.equal(await status(app, 'GET', own, headers), 401, 'every remembered form of the old pair is refused')
      }
      t.equal(await status(app, 'GET', own, basic('alice@example.com:a-new-password')), 200)
    }
  )
}
