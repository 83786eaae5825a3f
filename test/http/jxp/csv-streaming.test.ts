// CSV exports against clients that do not read (a slow or hostile client) on every
// engine: at most LIMITS.csvExports exports run at once, one per client address (one more
// is a 429), and an export whose client leaves releases its slot and its database cursor.
import t from 'tap'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { ENGINES, basicAuth } from '../../helpers/test-app.ts'
import { createLoggedApp } from '../../helpers/auth-helpers.ts'
import { newSystemFields } from '../../../src/documents/prepare-document.ts'
import { ANONYMOUS } from '../../../src/auth/caller.ts'
import { LIMITS } from '../../../src/validation/limits.ts'

/** A CSV request from `localAddress` whose response is never read: resolves once its headers arrived. */
function stalledExport(
  port: number,
  authorization: string,
  localAddress: string
): Promise<{ status: number; stop: () => void }> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      { port, host: '127.0.0.1', localAddress, path: '/csv/link', headers: { authorization } },
      res => {
        res.pause()
        resolve({ status: res.statusCode ?? 0, stop: () => req.destroy() })
      }
    )
    req.on('error', err => {
      if ((err as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(err)
    })
  })
}

for (const engine of ENGINES) {
  t.test(`CSV exports and clients that do not read, on ${engine}`, async t => {
    const { app, logs } = await createLoggedApp(t, engine)
    await app.inject({
      method: 'POST',
      url: '/setup',
      payload: { email: 'admin@example.com', password: 'admin-password-1' }
    })
    const admin = basicAuth('admin@example.com', 'admin-password-1')
    const name = 'x'.repeat(200)
    const docs = Array.from({ length: 100_000 }, (_, i) => ({
      ...newSystemFields({ ...ANONYMOUS, admin: true }),
      name: `${name} ${i}`,
      val: i
    }))
    for (let i = 0; i < docs.length; i += 10_000)
      await app.db.insertMany(app.models.get('link'), docs.slice(i, i + 10_000))
    await app.listen({ port: 0, host: '127.0.0.1' })
    const port = (app.server.address() as AddressInfo).port

    const stalled = [await stalledExport(port, admin, '127.0.0.2')]
    // Found by a black-box probe: two paused downloads from one address held every export off.
    const again = await app.inject({
      url: '/csv/link?limit=1',
      headers: { authorization: admin },
      remoteAddress: '127.0.0.2'
    })
    t.same(
      [again.statusCode, JSON.parse(again.body).code, again.headers['retry-after']],
      [429, 'RATE_LIMITED', '1'],
      'a second export from the same address is a 429'
    )
    t.match(JSON.parse(again.body).message, /already has a CSV export running/)
    for (let i = 1; i < LIMITS.csvExports; i++) stalled.push(await stalledExport(port, admin, `127.0.0.${2 + i}`))
    t.same(
      stalled.map(s => s.status),
      Array(LIMITS.csvExports).fill(200),
      'exports whose clients stopped reading (20 MB each: more than the sockets hold)'
    )
    const third = await app.inject({ url: '/csv/link?limit=1', headers: { authorization: admin } })
    t.same(
      [third.statusCode, JSON.parse(third.body).code, third.headers['retry-after']],
      [429, 'RATE_LIMITED', '1'],
      'one more export is a 429 to retry'
    )
    t.equal((await app.inject({ url: '/api/link?limit=1' })).statusCode, 200, 'other reads keep flowing')

    for (const s of stalled) s.stop()
    let status = 0
    for (let tries = 0; tries < 100 && status !== 200; tries++) {
      status = (await app.inject({ url: '/csv/link?limit=1', headers: { authorization: admin } })).statusCode
      if (status !== 200) await new Promise(resolve => setTimeout(resolve, 100))
    }
    t.equal(status, 200, 'clients that left release their slots (and cursors)')
    const ended = logs
      .map(line => JSON.parse(line) as { level: number; msg: string })
      .filter(entry => /ended early/.test(entry.msg))
    t.ok(ended.length >= LIMITS.csvExports, 'the exports that lost their clients are logged')
    t.same(
      ended.filter(entry => entry.level >= 50),
      [],
      'at info level, not as errors: anyone could fill the error log with them'
    )
    const full = await app.inject({ url: '/csv/link?fields=val', headers: { authorization: admin } })
    t.equal(full.body.split('\r\n').length, 100_002, 'and a whole export works again')
  })
}
