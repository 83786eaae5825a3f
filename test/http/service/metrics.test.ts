// GET /metrics: off unless METRICS_ENABLED; Prometheus text with requests by route and status,
// database operations (in flight, pool size, durations, errors) and event-loop delay; a bearer
// token when METRICS_TOKEN is set. On PostgreSQL.
import t, { type Test } from 'tap'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestApp, ENGINES } from '../../helpers/test-app.ts'

/** A models directory with `uniq` (a unique code; anyone may create) to provoke a database error. */
function uniqueModels(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'quire-metrics-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(
    join(dir, 'uniq.json'),
    JSON.stringify({
      name: 'uniq',
      fields: { code: { type: 'string' } },
      indexes: [{ fields: ['code'], unique: true }],
      perms: { all: 'cr' }
    })
  )
  return dir
}

/** The value of one sample line, e.g. `name{label="x"} 3`. */
function sample(text: string, line: string): number | undefined {
  const found = text.split('\n').find(l => l.startsWith(`${line} `))
  return found === undefined ? undefined : Number(found.slice(line.length + 1))
}

t.test('off by default', async t => {
  const { app } = await createTestApp(t, 'postgres')
  t.equal((await app.inject('/metrics')).statusCode, 404)
})

for (const engine of ENGINES) {
  t.test(`requests, database operations and the event loop (${engine})`, async t => {
    const { app } = await createTestApp(t, engine, { metricsEnabled: true, modelsDir: uniqueModels(t) })
    const create = (code: string) => app.inject({ method: 'POST', url: '/api/uniq', payload: { code } })
    const insertsBefore =
      sample((await app.inject('/metrics')).body, 'quire_db_operation_duration_seconds_count{operation="insert"}') ?? 0
    t.equal((await create('a')).statusCode, 200)
    t.equal((await create('a')).statusCode, 409)
    t.equal((await app.inject('/api/uniq?limit=1')).statusCode, 200)

    const res = await app.inject('/metrics')
    t.equal(res.statusCode, 200)
    t.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4/)
    const text = res.body
    t.equal(
      sample(text, 'http_request_duration_seconds_count{method="POST",route="/api/:model",status_code="200"}'),
      1,
      'requests by route and status'
    )
    t.equal(sample(text, 'http_request_duration_seconds_count{method="POST",route="/api/:model",status_code="409"}'), 1)
    t.ok(
      sample(
        text,
        'http_request_duration_seconds_bucket{le="0.005",method="GET",route="/api/:model",status_code="200"}'
      ) !== undefined,
      'with a latency histogram'
    )
    t.equal(sample(text, 'quire_db_operations_in_flight'), 0, 'database operations in flight')
    t.equal(sample(text, `quire_db_pool_size{engine="${engine}"}`), 10, 'against the pool size (PG_POOL_SIZE)')
    t.equal(
      sample(text, 'quire_db_operation_duration_seconds_count{operation="insert"}'),
      insertsBefore + 2,
      'operations by method'
    )
    t.equal(
      sample(text, 'quire_db_operation_errors_total{operation="insert",code="DUPLICATE_KEY"}'),
      1,
      'query errors by code'
    )
    t.ok(sample(text, 'nodejs_eventloop_lag_seconds') !== undefined, 'event-loop delay')
    t.ok(sample(text, 'nodejs_eventloop_lag_p99_seconds') !== undefined)
  })
}

t.test('METRICS_TOKEN protects the endpoint', async t => {
  const { app } = await createTestApp(t, 'postgres', {
    metricsEnabled: true,
    metricsToken: 'a-token-of-16-chars-or-more'
  })
  const scrape = (authorization?: string) =>
    app.inject({ url: '/metrics', headers: authorization ? { authorization } : {} })
  const missing = await scrape()
  t.equal(missing.statusCode, 401)
  t.equal(missing.json().code, 'AUTH_REQUIRED')
  t.equal((await scrape('Bearer a-token-of-16-chars-or-more-not')).statusCode, 401)
  t.equal((await scrape('Basic YWRtaW46eA==')).statusCode, 401)
  const ok = await scrape('Bearer a-token-of-16-chars-or-more')
  t.equal(ok.statusCode, 200)
  t.match(ok.body, /quire_db_operations_in_flight/)
})
