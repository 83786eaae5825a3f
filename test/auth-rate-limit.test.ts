// Abuse limits on a controlled clock: failed password checks per account and
// per IP (15-minute windows, /login and Basic alike), requests to the login
// endpoints per IP (1-minute windows), recovery emails per account; 429 with
// Retry-After, and the limits lift when the window ends.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { ENGINES, basicAuth, createTestApp } from './helpers/test-app.ts'
import { advanceClock, json } from './helpers/auth-helpers.ts'

const LIMIT = 3

async function post (app: FastifyInstance, url: string, payload: object, ip: string): Promise<{ status: number, body: Record<string, any>, retryAfter?: string }> {
  const res = await app.inject({ method: 'POST', url, payload, remoteAddress: ip })
  return { status: res.statusCode, body: json(res), retryAfter: res.headers['retry-after'] as string | undefined }
}

for (const engine of ENGINES) {
  t.test(engine, async t => {
    const { app, createUser } = await createTestApp(t, engine, { loginRateLimit: LIMIT })
    await createUser('alice@example.com', 'alice-password')
    await createUser('bob@example.com', 'bob-password')
    const alice = { email: 'alice@example.com', password: 'alice-password' }

    t.test('failed logins per account, from any IP', async t => {
      for (let i = 1; i <= LIMIT; i++) {
        t.equal((await post(app, '/login', { ...alice, password: 'wrong' }, `10.0.0.${i}`)).status, 401)
      }
      const locked = await post(app, '/login', alice, '10.0.0.9')
      t.equal(locked.status, 429, 'even the right password waits')
      t.equal(locked.body.code, 'RATE_LIMITED')
      t.equal(locked.body.status, 'fail')
      t.ok(Number(locked.retryAfter) > 800 && Number(locked.retryAfter) <= 900, `Retry-After ${locked.retryAfter}`)
      const basic = await app.inject({ method: 'GET', url: '/api/link', headers: { authorization: basicAuth(alice.email, alice.password) }, remoteAddress: '10.0.0.10' })
      t.equal(basic.statusCode, 429, 'Basic auth shares the account limit')
      t.equal((await post(app, '/login', { email: 'bob@example.com', password: 'bob-password' }, '10.0.0.11')).status, 200, 'other accounts are not affected')
      advanceClock(app, 15 * 60_000)
      t.equal((await post(app, '/login', alice, '10.0.0.12')).status, 200, 'the window ended')
    })

    t.test('failed password checks per IP, across accounts (Basic too)', async t => {
      const ip = '10.0.1.1'
      for (const email of ['x1@example.com', 'x2@example.com', 'x3@example.com']) {
        const res = await app.inject({ method: 'GET', url: '/api/link', headers: { authorization: basicAuth(email, 'guess') }, remoteAddress: ip })
        t.equal(res.statusCode, 401)
      }
      const res = await app.inject({ method: 'GET', url: '/api/link', headers: { authorization: basicAuth('bob@example.com', 'bob-password') }, remoteAddress: ip })
      t.equal(res.statusCode, 429)
      t.ok(res.headers['retry-after'])
      const elsewhere = await app.inject({ method: 'GET', url: '/api/link', headers: { authorization: basicAuth('bob@example.com', 'bob-password') }, remoteAddress: '10.0.1.2' })
      t.equal(elsewhere.statusCode, 200)
      advanceClock(app, 15 * 60_000)
    })

    t.test('requests to the login endpoints per IP and minute', async t => {
      const ip = '10.0.2.1'
      for (let i = 0; i < LIMIT; i++) t.equal((await post(app, '/login', { email: 'bob@example.com', password: 'bob-password' }, ip)).status, 200)
      const limited = await post(app, '/refresh', {}, ip)
      t.equal(limited.status, 429, 'the login endpoints share the per-IP budget')
      t.ok(Number(limited.retryAfter) >= 1 && Number(limited.retryAfter) <= 60)
      t.equal((await app.inject({ method: 'GET', url: '/api/link', remoteAddress: ip })).statusCode, 200, 'other routes are not limited')
      advanceClock(app, 61_000)
      t.equal((await post(app, '/login', { email: 'bob@example.com', password: 'bob-password' }, ip)).status, 200)
    })

    t.test('recovery emails per account', async t => {
      for (let i = 1; i <= LIMIT; i++) t.equal((await post(app, '/login/recover', { email: 'bob@example.com' }, `10.0.3.${i}`)).status, 200)
      const limited = await post(app, '/login/recover', { email: 'BOB@example.com' }, '10.0.3.9')
      t.equal(limited.status, 429)
      t.equal((await post(app, '/login/recover', { email: 'alice@example.com' }, '10.0.3.10')).status, 200)
    })
  })
}
