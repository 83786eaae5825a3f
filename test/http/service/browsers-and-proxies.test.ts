// What browsers and proxies see: security headers (helmet), CORS for allowed origins only,
// OPTIONS answered (preflight or plain) and PATCH refused with Allow, and TRUST_PROXY deciding
// whose X-Forwarded-For the logs (and the per-IP limits) believe.
import t, { type Test } from 'tap'
import { Writable } from 'node:stream'
import { buildApp } from '../../../app.ts'
import { loadConfig } from '../../../src/config.ts'
import { QUIET_SETTINGS, createTestApp, databaseUrl } from '../../helpers/test-app.ts'

const ORIGIN = 'https://app.example.com'

t.test('security headers on API answers', async t => {
  const { app } = await createTestApp(t, 'postgres')
  const res = await app.inject('/api/test')
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-security-policy'], /default-src 'self'/)
  t.notMatch(res.headers['content-security-policy'], /upgrade-insecure-requests/, 'plain HTTP on a LAN keeps working')
  t.equal(res.headers['x-content-type-options'], 'nosniff')
  t.equal(res.headers['x-frame-options'], 'SAMEORIGIN')
  t.equal(res.headers['cross-origin-opener-policy'], 'same-origin')
})

t.test('without CORS_ORIGINS: no CORS headers; OPTIONS and PATCH answered with Allow', async t => {
  const { app } = await createTestApp(t, 'postgres')
  const read = await app.inject({ url: '/api/test', headers: { origin: ORIGIN } })
  t.equal(read.statusCode, 200)
  t.notOk(read.headers['access-control-allow-origin'])
  const options = await app.inject({ method: 'OPTIONS', url: '/api/test' })
  t.equal(options.statusCode, 204)
  t.equal(options.headers.allow, 'GET, POST, PUT, DELETE, OPTIONS')
  const preflight = await app.inject({
    method: 'OPTIONS',
    url: '/api/test',
    headers: { origin: ORIGIN, 'access-control-request-method': 'PUT' }
  })
  t.equal(preflight.statusCode, 204)
  t.notOk(preflight.headers['access-control-allow-origin'], 'the browser is not allowed in')
  const patch = await app.inject({ method: 'PATCH', url: '/api/test/0123456789abcdef01234567', payload: {} })
  t.equal(patch.statusCode, 405)
  t.equal(patch.json().code, 'METHOD_NOT_ALLOWED')
  t.equal(patch.headers.allow, 'GET, POST, PUT, DELETE, OPTIONS')
})

t.test('with CORS_ORIGINS: preflights and answers for allowed origins only', async t => {
  const { app, admin } = await createTestApp(t, 'postgres', { corsOrigins: [ORIGIN, 'http://localhost:5173'] })
  const preflight = await app.inject({
    method: 'OPTIONS',
    url: '/api/test/0123456789abcdef01234567',
    headers: {
      origin: ORIGIN,
      'access-control-request-method': 'PUT',
      'access-control-request-headers': 'authorization, content-type'
    }
  })
  t.equal(preflight.statusCode, 204, 'a preflight is answered, not refused')
  t.equal(preflight.headers['access-control-allow-origin'], ORIGIN)
  t.match(preflight.headers['access-control-allow-methods'], /PUT/)
  t.match(preflight.headers['access-control-allow-methods'], /DELETE/)
  t.equal(preflight.headers['access-control-allow-headers'], 'authorization, content-type')
  t.match(preflight.headers.vary, /Origin/)

  const stranger = await app.inject({
    method: 'OPTIONS',
    url: '/api/test',
    headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' }
  })
  t.notOk(stranger.headers['access-control-allow-origin'], 'another origin is not allowed')

  const created = await app.inject({
    method: 'POST',
    url: '/api/test',
    headers: { origin: ORIGIN, authorization: admin },
    payload: { foo: 'from a browser' }
  })
  t.equal(created.statusCode, 200)
  t.equal(created.headers['access-control-allow-origin'], ORIGIN, 'the answer carries the allowed origin')
  t.match(created.headers['access-control-expose-headers'], /Retry-After/)
  t.notOk(
    (await app.inject({ url: '/api/test', headers: { origin: 'https://evil.example' } })).headers[
      'access-control-allow-origin'
    ]
  )
  t.equal((await app.inject({ method: 'OPTIONS', url: '/api/test' })).statusCode, 204, 'a plain OPTIONS too')
})

t.test('CORS_ORIGINS=* lets any origin in', async t => {
  const { app } = await createTestApp(t, 'postgres', { corsOrigins: ['*'] })
  const res = await app.inject({ url: '/api/test', headers: { origin: 'https://anywhere.example' } })
  t.equal(res.headers['access-control-allow-origin'], '*')
})

/** The remote address the request log records for a request from 127.0.0.1 claiming to forward 203.0.113.7. */
async function loggedAddress(t: Test, trustProxy: boolean | string[]): Promise<string> {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk))
      done()
    }
  })
  const config = {
    ...loadConfig({ DATABASE_URL: await databaseUrl('postgres') }),
    ...QUIET_SETTINGS,
    modelsDir: '/nonexistent',
    trustProxy
  }
  const app = await buildApp({ config, logger: { level: 'info', stream } })
  t.teardown(() => app.close())
  await app.inject({ url: '/health', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '203.0.113.7' } })
  const answered = lines.map(line => JSON.parse(line)).find(entry => entry.route === '/health')
  return answered.req.remoteAddress
}

t.test('TRUST_PROXY decides whose X-Forwarded-For is believed', async t => {
  t.equal(await loggedAddress(t, false), '127.0.0.1', "unset: the connection's address, the header ignored")
  t.equal(await loggedAddress(t, ['127.0.0.1']), '203.0.113.7', 'a trusted proxy: the client it names')
  t.equal(await loggedAddress(t, ['10.0.0.0/8']), '127.0.0.1', 'an untrusted peer cannot claim another address')
})
