// The reliability suite's own judges (reliability/): the secret scanner finds
// what it must and allows credentials only in login replies; generated JSON
// keeps "__proto__" keys, raw number tokens and deep nesting that
// JSON.stringify cannot write; the restart judge counts /ready from the moment PostgreSQL has
// stopped, not from the moment it was asked to; the store digest ignores only the change log's numbering
// (taken on the embedded default, whose server it starts and stops again, as every quire command does);
// the malformed bodies the fuzz sends to /login carry no credentials (a Basic header logs in whatever the body);
// the soak judges throughput by thirds of the run, so that one passing event at its end does not decide;
// the suite's HTTP client frames every body it sends, whatever the method.
import t from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createSecretScanner } from '../reliability/secret-scanner.ts'
import { createHttpClient } from '../reliability/http-client.ts'
import { deeplyNested, obj, RawJson, toJsonText } from '../reliability/fuzz/json-text.ts'
import { judgeRestart, type ReadySample } from '../reliability/scenarios/restart.ts'
import { rssGrowth, throughputChange } from '../reliability/scenarios/soak.ts'
import { digestStore } from '../reliability/digest.ts'
import { newDataDir, serverPid } from '../bench/embedded-store.ts'
import { embeddedStore, withStore } from '../bench/store.ts'
import { openPostgres } from '../src/storage/postgres/postgres-client.ts'
import { CHANGE_LOG_DDL, CHANGE_POSITIONS, CHANGE_STATE, CHANGE_TABLE } from '../src/compiler/ddl/change-capture-ddl.ts'
import { createRequestGenerator } from '../reliability/fuzz/requests.ts'
import { createChoice } from '../reliability/fuzz/random-choice.ts'
import { drawPools } from '../reliability/fuzz/pools.ts'
import { loadModels } from '../src/models/load-models.ts'

const reply = (
  body: string,
  headers = {}
): { status: number; headers: Record<string, string>; body: string; ms: number } => ({
  status: 200,
  headers,
  body,
  ms: 1
})
const HASH = '$2b$10$' + 'a'.repeat(53)
const TOKEN = 'qat_' + 'B'.repeat(43)

t.test('secret scanner', async t => {
  const scanner = createSecretScanner()
  scanner.add('the admin password', 'admin-s3cret')
  scanner.add("admin's token", TOKEN, { credential: true })
  scanner.addStoredPassword('pw-abcdefghij')
  scanner.scanReply({ method: 'GET', path: '/api/test' }, reply('{"data":[{"foo":"pw-abcdefghijk"}]}'))
  t.equal(scanner.findings.length, 0, 'a clean reply')
  scanner.scanReply({ method: 'POST', path: '/login' }, reply(`{"token":"${TOKEN}"}`))
  t.equal(scanner.findings.length, 0, 'a login reply may carry the credential')
  t.equal(scanner.counts.credentialReplies, 1, 'and the pattern recognized it')
  scanner.scanReply({ method: 'GET', path: '/api/test' }, reply(`{"data":[{"password":"${HASH}"}]}`))
  scanner.scanReply({ method: 'GET', path: '/api/user' }, reply('{}', { location: `/x?apikey=${TOKEN}` }))
  scanner.scanReply({ method: 'POST', path: '/refresh' }, { ...reply(`{"err":"${TOKEN}"}`), status: 401 })
  scanner.scanReply(
    { method: 'POST', path: '/login/getjwt' },
    reply('{"jwt":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"}')
  )
  t.equal(scanner.findings.length, 5, 'an admin asking for a login link gets one')
  const log = scanner.logSink('server')
  log('{"msg":"ok"}\n{"msg":"stored pw-abcdefghij, login admin-s3')
  log(
    'cret"}\n{"url":"/x?jwt=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.' +
      'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"}\n'
  )
  t.same(
    scanner.findings.map(f => f.what),
    [
      'bcrypt hash',
      'credential',
      "admin's token",
      'credential',
      "admin's token",
      'the admin password',
      'a password stored by the fuzz',
      'login link (JWT)'
    ]
  )
  t.match(scanner.findings[1].where, /headers/)
  t.equal(scanner.counts.logLines, 3, 'log lines are scanned whole, across chunks')
})

t.test('generated JSON text', async t => {
  t.equal(
    toJsonText(
      obj([
        ['__proto__', obj([['admin', true]])],
        ['a', 1],
        ['a', new RawJson('1e400')]
      ])
    ),
    '{"__proto__":{"admin":true},"a":1,"a":1e400}'
  )
  t.equal(toJsonText(['\u0000', '\ud800']), '["\\u0000","\\ud800"]')
  const deep = toJsonText(deeplyNested(20_000, 'object'))
  t.equal(deep.length, 20_000 * 6 + 1)
  t.same(JSON.parse(toJsonText(deeplyNested(3, 'array'))), [[[]]])
  t.same(JSON.parse(toJsonText(deeplyNested(2, 'object'))), { a: { a: 1 } })
})

t.test('restart judge: /ready must say not ready once PostgreSQL has stopped', async t => {
  // Asked to stop at 1 s, stopped at 2.5 s (a checkpoint under load), asked to start at 7.4 s, back at 7.5 s.
  const timeline = { downAt: 1000, stoppedAt: 2500, startAt: 7400, backAt: 7500, crashed: false, started: Date.now() }
  const samples = Array.from({ length: 150 }, (_, i) => {
    const at = i * 100
    const down = at >= timeline.stoppedAt && at < timeline.backAt
    return {
      at,
      ms: 5,
      status: down ? 503 : 200,
      code: down ? 'UNAVAILABLE' : undefined,
      path: '/api/test',
      label: '/api/test'
    }
  })
  const ready = (down200At?: number, ms = 5): ReadySample[] =>
    Array.from({ length: 75 }, (_, i) => {
      const at = i * 200
      const down = at >= timeline.stoppedAt && at + ms <= timeline.startAt && at !== down200At
      return { at, ms, status: down ? 503 : 200 }
    })
  const readyCheck = (readiness: ReadySample[]): { ok: boolean; value: string } | undefined =>
    judgeRestart({ statementTimeoutMs: 2000, downSeconds: 5 }, samples, readiness, timeline).checks.find(
      c => c.name === '/ready'
    )
  t.match(readyCheck(ready()), { ok: true, value: '24/24 not ready while down' }, 'ready until stopped, then not ready')
  t.match(readyCheck(ready(1800)), { ok: true }, 'still ready while shutting down')
  t.match(readyCheck(ready(3000)), { ok: false, value: '23/24 not ready while down' }, 'ready although stopped')
  const late = ready().map(r => (r.at === 7200 ? { ...r, ms: 400, status: 200 } : r))
  t.match(
    readyCheck(late),
    { ok: true, value: '23/23 not ready while down' },
    'a probe still waiting when the start was asked may find the database back'
  )
})

t.test('soak judge: throughput falls when a third of the run is slower, not when one event dips the end', async t => {
  const windows = (reqPerSec: number[]): Array<{ reqPerSec: number }> => reqPerSec.map(r => ({ reqPerSec: r }))
  // The embedded default alone (its windows at 01:05 on 2026-11-29): the timed checkpoint (fsync on) wrote through
  // half of the last third, and something (autovacuum after the seeding, probably) dipped two windows of the first.
  const checkpointAtTheEnd = windows([
    612, 506, 548, 637, 618, 620, 649, 636, 638, 657, 654, 629, 663, 588, 542, 504, 560, 602
  ])
  t.match(throughputChange(checkpointAtTheEnd), { startThroughput: 620, endThroughput: 602 }, 'a passing dip')
  t.ok(throughputChange(checkpointAtTheEnd).drop <= 0.1, 'is within the allowed 10%')
  const declining = windows(Array.from({ length: 18 }, (_, i) => 850 - i * 12))
  t.ok(throughputChange(declining).drop > 0.1, `a decline over the run is not (${throughputChange(declining).drop})`)
  const slowerEnd = windows([...Array(12).fill(850), 850, 700, 700, 700, 700, 700])
  t.ok(
    throughputChange(slowerEnd).drop > 0.1,
    `nor a last third slower in all but one window (${throughputChange(slowerEnd).drop})`
  )
})

t.test('soak judge: memory grows when every window of a third sits higher, not when one collection dips', async t => {
  const windows = (floors: number[]): Array<{ rssFloorMb: number }> => floors.map(f => ({ rssFloorMb: f }))
  // PostgreSQL in a full run: window medians 235-256 MB throughout, one deep collection in each outer third.
  const oneDeepCollection = windows([
    244, 238, 196, 240, 236, 242, 239, 241, 237, 243, 240, 238, 240, 219, 243, 245, 241, 246
  ])
  t.match(rssGrowth(oneDeepCollection), { startFloor: 240, endFloor: 243 }, 'the median windows of the outer thirds')
  t.ok(rssGrowth(oneDeepCollection).growth < 0.1, 'are within the allowed 10%')
  const leaking = windows(Array.from({ length: 18 }, (_, i) => 200 + i * 3))
  t.ok(rssGrowth(leaking).growth > 0.1, `a floor that rises through the run is growth (${rssGrowth(leaking).growth})`)
})

t.test('the store digest sees a changed document, not the change log being numbered', async t => {
  const dir = newDataDir('quire-digest-')
  const left: string[] = []
  t.teardown(() =>
    dir.remove(msg => {
      left.push(msg)
    })
  )
  const store = embeddedStore(dir.dataDir)
  const write = async (statements: string[]): Promise<void> =>
    await withStore(
      store,
      () => {},
      async () => {
        const client = openPostgres(store.url, 10_000)
        try {
          for (const sql of statements) await client.exec(sql)
        } finally {
          await client.close()
        }
      }
    )
  await write([
    CHANGE_LOG_DDL,
    'CREATE TABLE q_items (_id text PRIMARY KEY, doc jsonb NOT NULL)',
    `INSERT INTO q_items VALUES ('a', '{"n": 1}')`,
    `INSERT INTO ${CHANGE_TABLE} (model, op, doc_id) VALUES ('items', 'put', 'a')`
  ])
  const before = await digestStore(store)
  t.equal(serverPid(dir.dataDir), undefined, 'the digest let go of the embedded server it started: stopped')
  await write([
    `INSERT INTO ${CHANGE_POSITIONS} (pos, id) SELECT 1, id FROM ${CHANGE_TABLE}`,
    `UPDATE ${CHANGE_STATE} SET head = 1, floor = 1`
  ])
  t.equal((await digestStore(store)).digest, before.digest, "numbering captured changes is the server's bookkeeping")
  await write([`UPDATE ${CHANGE_TABLE} SET doc_id = 'b'`])
  t.not((await digestStore(store)).digest, before.digest, 'a changed captured change is a change')
  await write(['UPDATE q_items SET doc = \'{"n": 2}\''])
  const changed = await digestStore(store)
  t.not(changed.digest, before.digest, 'so is a changed document')
  t.same(changed.counts, { q_items: 1, [CHANGE_TABLE]: 1, [CHANGE_STATE]: 1 })
  t.equal(serverPid(dir.dataDir), undefined, 'no server left running')
})

t.test(
  'the fuzz sends malformed login bodies without credentials: a valid Basic header would log in whatever the body',
  async t => {
    const identity = (who: string): { email: string; password: string; apikey: string } => ({
      email: `${who}@example.com`,
      password: `${who}-password`,
      apikey: `qak_${who}`
    })
    const target = {
      models: [...loadModels(new URL('../models', import.meta.url).pathname).values()],
      ids: {},
      identities: { admin: identity('admin'), user: identity('user') },
      onPassword: () => {}
    }
    const next = createRequestGenerator(createChoice(7, drawPools(7)), target, 'hostile')
    const probes = Array.from({ length: 30_000 }, next).filter(
      r => r.path === '/login' && (r.family === 'bad-json' || r.family === 'content-type')
    )
    t.ok(probes.length > 10, `${probes.length} malformed bodies sent to /login`)
    t.same(
      probes.filter(r => ['authorization', 'apikey', 'x-api-key'].some(h => h in (r.headers ?? {}))),
      [],
      'none with credentials'
    )
  }
)

t.test(
  'the suite client frames a body sent with any method: the next request on its connection gets its own answer',
  async t => {
    const seen: string[] = []
    const server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        seen.push(`${req.method} ${Buffer.concat(chunks).toString()}`)
        res.end('answered')
      })
    })
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    t.teardown(() => server.close())
    const client = createHttpClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 1)
    t.teardown(client.close)
    for (const method of ['OPTIONS', 'DELETE', 'GET']) {
      const sent = await client.send({ method, path: '/', body: '{"a":1}' })
      t.equal(sent.status, 200, `${method} with a body: ${sent.error ?? 'answered'}`)
      const head = await client.send({ method: 'HEAD', path: '/' })
      t.equal(head.status, 200, `the HEAD after it: ${head.error ?? 'answered'}`)
    }
    t.same(
      seen,
      ['OPTIONS {"a":1}', 'HEAD ', 'DELETE {"a":1}', 'HEAD ', 'GET {"a":1}', 'HEAD '],
      'the server read each body'
    )
  }
)
