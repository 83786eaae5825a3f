// The service's life: a real `quire serve` told to stop with SIGTERM while requests are in flight
// answers every one of them and stores their writes; /health and /ready; load shed with 503
// while the event loop lags; a client too slow to send its request is cut off.
import t from 'tap'
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { connect } from 'node:net'
import { QUIET_SETTINGS, createTestApp, databaseUrl, ENGINES } from '../../helpers/test-app.ts'
import { runCli, startServer } from '../../helpers/run-cli.ts'
import { buildApp } from '../../../app.ts'
import { loadConfig } from '../../../src/config.ts'
import { startPgCluster } from '../../helpers/throwaway-cluster.ts'

const IN_FLIGHT = 8

/** A models directory with `slow`: anyone may create, and every create hashes a password (bcrypt). */
function slowModels(dir: string): string {
  const models = join(dir, 'models')
  mkdirSync(models)
  writeFileSync(
    join(models, 'slow.json'),
    JSON.stringify({ name: 'slow', fields: { n: { type: 'number' }, pin: { type: 'password' } }, perms: { all: 'cr' } })
  )
  return models
}

function countIncoming(lines: string[]): number {
  return lines.filter(line => line.includes('"incoming request"') && line.includes('/api/slow')).length
}

for (const engine of ENGINES) {
  t.test(`SIGTERM with ${IN_FLIGHT} requests in flight answers them all (${engine})`, async t => {
    const dir = mkdtempSync(join(tmpdir(), 'quire-lifecycle-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    const env = {
      MODELS_DIR: slowModels(dir),
      DATABASE_URL: await databaseUrl(engine),
      // Each create hashes a password (about 0.1 s here, seconds on a loaded machine): in flight long enough.
      BCRYPT_ROUNDS: '11',
      // Room for a loaded machine: what counts is that no request is lost, not how long they take.
      SHUTDOWN_TIMEOUT_MS: '60000',
      // Every request must reach its handler here; shedding under load has its own test below.
      MAX_EVENT_LOOP_DELAY_MS: '0',
      // Each request's arrival is logged at debug ("incoming request"): the test waits for them.
      LOG_LEVEL: 'debug'
    }
    const server = await startServer(env)
    t.teardown(() => {
      server.child.kill('SIGKILL')
    })

    const replies = Array.from({ length: IN_FLIGHT }, (_, n) =>
      fetch(`${server.url}/api/slow`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ n, pin: `pin-${n}` })
      }).then(
        async res => ({ status: res.status, body: (await res.json()) as { status?: string; data?: { n: number } } }),
        (err: Error) => ({
          status: 0,
          body: {
            status: `no answer: ${err.message} (${String((err.cause as Error | undefined)?.message ?? '')})`
          } as { status?: string; data?: { n: number } }
        })
      )
    )
    while (countIncoming(server.lines) < IN_FLIGHT) await sleep(10)
    server.child.kill('SIGTERM')

    const answered = await Promise.all(replies)
    t.same(
      answered.map(a => a.status),
      Array(IN_FLIGHT).fill(200),
      'every in-flight request is answered with 200'
    )
    if (answered.some(a => a.status !== 200))
      t.comment(JSON.stringify(answered.map(a => a.body.status)), server.stderr(), server.lines.slice(-20).join('\n'))
    t.same(answered.map(a => a.body.data?.n).sort(), [...Array(IN_FLIGHT).keys()], 'each with its document')
    t.equal(await server.exited, 0, 'the process exits cleanly')
    t.ok(
      server.lines.some(line => line.includes('SIGTERM: closing')),
      'it says why it closes'
    )
    t.ok(
      server.lines.some(line => line.includes('"closed"')),
      'and that it closed'
    )

    const exported = await runCli(['export', 'slow'], env)
    t.equal(exported.code, 0, exported.stderr)
    t.equal(
      exported.stdout.trim().split('\n').length,
      IN_FLIGHT,
      'every write is stored (the database was closed cleanly)'
    )
  })

  t.test(`GET /health and GET /ready (${engine})`, async t => {
    const { app } = await createTestApp(t, engine)
    t.same((await app.inject('/health')).json(), { status: 'ok', engine })
    const ready = await app.inject('/ready')
    t.equal(ready.statusCode, 200)
    t.same(ready.json(), { status: 'ok', engine })
  })
}

t.test('GET /ready answers 503 while PostgreSQL is down, /health still 200', async t => {
  const cluster = await startPgCluster()
  let stopped = false
  t.teardown(() => (stopped ? undefined : cluster.stop()))
  const app = await buildApp({
    config: {
      ...loadConfig({ DATABASE_URL: cluster.url }),
      modelsDir: join(tmpdir(), 'quire-no-models'),
      ...QUIET_SETTINGS
    }
  })
  t.teardown(() => app.close())
  t.equal((await app.inject('/ready')).statusCode, 200)
  await cluster.stop()
  stopped = true
  const ready = await app.inject('/ready')
  t.equal(ready.statusCode, 503)
  t.same(ready.json(), { status: 'error', code: 'UNAVAILABLE', message: 'The database is unavailable' })
  t.equal((await app.inject('/health')).statusCode, 200, 'the process itself is alive')
})

t.test('a stalled event loop sheds requests with 503 OVERLOADED, then recovers', async t => {
  const { app } = await createTestApp(t, 'postgres', { maxEventLoopDelayMs: 50 })
  // Served before the stall: on a loaded machine the loop may lag past 50 ms for a while after the
  // start (creating the test's admin hashes a password), so wait for a sample that does not.
  let before = (await app.inject('/api/test')).statusCode
  for (let tries = 0; before === 503 && tries < 100; tries++) {
    await sleep(100)
    before = (await app.inject('/api/test')).statusCode
  }
  t.equal(before, 200, 'requests are served while the loop keeps up')
  // Keep this thread blocked 200 ms at a time until a request is shed: every 100 ms sample of the
  // lag is then far above 50 ms. (One 1 s block made a single sample high, and on a loaded CI
  // machine the next sample could clear the pressure before the request reached the check.)
  const block = new Int32Array(new SharedArrayBuffer(4))
  const lagging = setInterval(() => Atomics.wait(block, 0, 0, 200), 1)
  let shed = await app.inject('/api/test')
  for (let tries = 0; shed.statusCode !== 503 && tries < 50; tries++) shed = await app.inject('/api/test')
  clearInterval(lagging)
  t.equal(shed.statusCode, 503)
  t.same(shed.json(), { status: 'error', code: 'OVERLOADED', message: 'The server is overloaded: retry shortly' })
  t.equal(shed.headers['retry-after'], '2')
  t.equal((await app.inject('/health')).statusCode, 200, 'liveness answers under pressure')
  let status = 503
  for (let tries = 0; status === 503 && tries < 100; tries++) {
    await sleep(100)
    status = (await app.inject('/api/test')).statusCode
  }
  t.equal(status, 200, 'once the loop keeps up, requests are served again')
})

// Found by an audit: Fastify turns Node's request timeout off, so a client sending its body a few
// bytes at a time held its connection (and up to a body's worth of memory) for ever.
t.test('a client too slow to send its request is cut off (REQUEST_TIMEOUT_MS)', async t => {
  const { app } = await createTestApp(t, 'postgres', { requestTimeoutMs: 1000 })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const socket = connect(port, '127.0.0.1')
  const started = Date.now()
  let answer = ''
  socket.on('data', chunk => {
    answer += String(chunk)
  })
  socket.write(
    'POST /api/test HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: ' +
      '1000\r\n\r\n{"foo":'
  )
  const trickle = setInterval(() => socket.write(' '), 200)
  const closed = await Promise.race([
    new Promise(resolve => socket.once('close', () => resolve(true))),
    sleep(20_000, false)
  ])
  clearInterval(trickle)
  socket.destroy()
  t.ok(
    closed,
    `the connection is closed soon after the timeout, though the client kept sending (${Date.now() - started} ms)`
  )
  t.match(answer, /^HTTP\/1\.1 408/, 'with 408 Request Timeout')
})
