// Abuse limits that cannot be turned against users, on a controlled clock:
// failed password checks per account-and-address and per address (15-minute
// windows, /login and Basic alike; IPv6 by /64; one check at a time per address),
// a request bucket per login endpoint and address (1 minute), recovery emails per
// account; 429 with Retry-After, and the owner's right password from another
// address always works.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { ENGINES, basicAuth, createTestApp } from '../../helpers/test-app.ts'
import { advanceClock, json, startSmtp } from '../../helpers/auth-helpers.ts'
import { ADDRESS_BUDGET_FACTOR } from '../../../src/auth/throttle/login-throttle.ts'
import { ENDPOINT_LIMITS } from '../../../plugins/endpoint-limits.ts'

const LIMIT = 3
const WINDOW = 15 * 60_000

interface Reply {
  status: number
  body: Record<string, any>
  retryAfter?: string
}

async function post(
  app: FastifyInstance,
  url: string,
  payload: object,
  ip: string,
  headers: Record<string, string> = {}
): Promise<Reply> {
  const res = await app.inject({ method: 'POST', url, payload, remoteAddress: ip, headers })
  return { status: res.statusCode, body: json(res), retryAfter: res.headers['retry-after'] as string | undefined }
}

async function basicGet(app: FastifyInstance, email: string, password: string, ip: string): Promise<number> {
  const res = await app.inject({
    method: 'GET',
    url: '/api/link',
    headers: { authorization: basicAuth(email, password) },
    remoteAddress: ip
  })
  return res.statusCode
}

for (const engine of ENGINES) {
  t.test(engine, async t => {
    const smtp = await startSmtp(t)
    const { app, createUser } = await createTestApp(t, engine, {
      loginRateLimit: LIMIT,
      smtpUrl: `smtp://127.0.0.1:${smtp.port}`
    })
    await createUser('alice@example.com', 'alice-password')
    await createUser('bob@example.com', 'bob-password')
    const alice = { email: 'alice@example.com', password: 'alice-password' }

    t.test('wrong passwords from two addresses do not lock the owner out', async t => {
      for (const ip of ['10.0.0.1', '10.0.0.2']) {
        for (let i = 0; i < LIMIT; i++) t.equal(await basicGet(app, alice.email, `guess-${i}`, ip), 401)
        t.equal(await basicGet(app, alice.email, 'guess', ip), 429, 'the guessing address waits')
      }
      const attacker = await post(app, '/login', alice, '10.0.0.1')
      t.equal(attacker.status, 429, 'even with the right password, on /login too')
      t.equal(attacker.body.code, 'RATE_LIMITED')
      t.equal(attacker.body.status, 'fail')
      t.match(attacker.body.message, /Too many failed logins to this account from your address/)
      t.ok(
        Number(attacker.retryAfter) > 800 && Number(attacker.retryAfter) <= 900,
        `Retry-After ${attacker.retryAfter}`
      )
      t.equal((await post(app, '/login', alice, '10.0.0.9')).status, 200, 'the owner logs in from another address')
      t.equal(
        await basicGet(app, alice.email, alice.password, '10.0.0.10'),
        200,
        'and uses Basic auth from another address'
      )
      advanceClock(app, WINDOW)
      t.equal((await post(app, '/login', alice, '10.0.0.1')).status, 200, 'the window ended')
    })

    t.test('a burst of wrong passwords sent at once gets no more comparisons than its budget', async t => {
      // Each check passed the budget before any had failed: all 20 ran bcrypt, at the same time.
      const ip = '10.0.2.1'
      const burst = await Promise.all(
        Array.from({ length: 20 }, (_, i) => basicGet(app, 'bob@example.com', `burst-${i}`, ip))
      )
      t.equal(
        burst.filter(status => status === 401).length,
        LIMIT,
        "the pair budget's worth is compared, one at a time"
      )
      t.equal(burst.filter(status => status === 429).length, 20 - LIMIT, 'the rest are refused without a comparison')
      t.equal(
        await basicGet(app, 'bob@example.com', 'bob-password', '10.0.2.2'),
        200,
        'the owner, from another address, is not held up'
      )
      advanceClock(app, WINDOW)
    })

    t.test('an address failing across accounts waits for every account', async t => {
      const ip = '10.0.1.1'
      for (let i = 0; i < LIMIT * ADDRESS_BUDGET_FACTOR; i++)
        t.equal(await basicGet(app, `x${i}@example.com`, 'guess', ip), 401)
      t.equal(await basicGet(app, 'bob@example.com', 'bob-password', ip), 429)
      t.equal(
        await basicGet(app, 'bob@example.com', 'bob-password', '10.0.1.2'),
        200,
        'other addresses are not affected'
      )
      advanceClock(app, WINDOW)
      t.equal(await basicGet(app, 'bob@example.com', 'bob-password', ip), 200, 'the window ended')
    })

    t.test('IPv6 addresses count by their /64', async t => {
      for (let i = 1; i <= LIMIT; i++) await basicGet(app, alice.email, 'guess', `2001:db8:0:7::${i}`)
      t.equal(
        (await post(app, '/login', alice, '2001:db8:0:7::ffff')).status,
        429,
        'the same /64 shares the pair budget'
      )
      t.equal((await post(app, '/login', alice, '2001:db8:0:8::1')).status, 200, 'another /64 does not')
      advanceClock(app, WINDOW)
    })

    t.test('each login endpoint has its own request bucket per address', async t => {
      const ip = '10.0.2.1'
      for (let i = 0; i < LIMIT * ENDPOINT_LIMITS.login; i++)
        t.equal((await post(app, '/login', { email: 'bob@example.com', password: 'bob-password' }, ip)).status, 200)
      const limited = await post(app, '/login', { email: 'bob@example.com', password: 'bob-password' }, ip)
      t.equal(limited.status, 429)
      t.equal(limited.body.code, 'RATE_LIMITED')
      t.match(limited.body.message, /Too many requests to \/login from your address: try again in \d+ s/)
      t.ok(Number(limited.retryAfter) >= 1 && Number(limited.retryAfter) <= 60, `Retry-After ${limited.retryAfter}`)
      for (let i = 0; i < LIMIT * ENDPOINT_LIMITS.refresh; i++) {
        t.equal(
          (await post(app, '/refresh', {}, ip, { authorization: 'Bearer qrt_unknown' })).status,
          401,
          '/refresh keeps its own budget'
        )
      }
      t.equal((await post(app, '/refresh', {}, ip, { authorization: 'Bearer qrt_unknown' })).status, 429)
      t.equal(
        (await post(app, '/login/recover', { email: 'nobody@example.com' }, ip)).status,
        403,
        '/login/recover keeps its own budget'
      )
      t.equal(
        (await post(app, '/login/reset', { jwt: 'x', password: 'p' }, ip)).status,
        401,
        '/login/reset keeps its own budget'
      )
      t.equal(
        (await post(app, '/setup', { email: 'a@example.com', password: 'p' }, ip)).status,
        409,
        '/setup keeps its own budget'
      )
      t.equal(
        (await app.inject({ method: 'GET', url: '/api/link', remoteAddress: ip })).statusCode,
        200,
        'other routes are not limited'
      )
      t.equal(
        (await post(app, '/login', { email: 'bob@example.com', password: 'bob-password' }, '10.0.2.2')).status,
        200,
        'other addresses are not limited'
      )
    })

    t.test('recovery emails per account', async t => {
      for (let i = 1; i <= LIMIT; i++)
        t.equal((await post(app, '/login/recover', { email: 'bob@example.com' }, `10.0.3.${i}`)).status, 200)
      const limited = await post(app, '/login/recover', { email: 'BOB@example.com' }, '10.0.3.9')
      t.equal(limited.status, 429)
      t.match(limited.body.message, /use the latest one/)
      t.equal((await post(app, '/login/recover', { email: 'alice@example.com' }, '10.0.3.10')).status, 200)
    })
  })
}
