// Database restart: PostgreSQL stops (fast shutdown) under steady load and
// starts again after RELIABILITY_DOWN_SECONDS. Meanwhile Quire must answer 503
// UNAVAILABLE (never a 500, never later than the statement timeout plus a
// margin), /ready must say not ready, and within 5 s of the database's return
// every request succeeds again, with the same Quire process. On the embedded
// default the DATA_DIR's server is stopped the same way (SIGINT to its postmaster)
// and started again as any `quire` command starts it (reliability/pg-control.ts).
import { log } from '../../bench/report.ts'
import type { HttpRequest } from '../http-client.ts'
import type { EngineName } from '../options.ts'
import { check, resultOf, type ScenarioResult } from '../report.ts'
import { startSteadyLoad, elapsed, percentile, type Sample } from '../steady-load.ts'
import type { Suite } from '../stack.ts'

const WORKERS = 16
const BEFORE_MS = 4000
const AFTER_MS = 10_000
const RECOVERY_MS = 5000
const MARGIN_MS = 1000

const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

/** A /ready probe: when it was sent and how long it took (ms since the load started). */
export interface ReadySample {
  at: number
  ms: number
  status: number
}

function readinessProbe(
  send: (req: HttpRequest) => Promise<{ status: number }>,
  since: number
): { stop: () => Promise<ReadySample[]> } {
  const samples: ReadySample[] = []
  let running = true
  const loop = (async () => {
    while (running) {
      const at = performance.now() - since
      const { status } = await send({ method: 'GET', path: '/ready' })
      samples.push({ at, ms: performance.now() - since - at, status })
      await sleep(200)
    }
  })()
  return {
    stop: async () => {
      running = false
      await loop
      return samples
    }
  }
}

export async function runRestart(suite: Suite, engine: EngineName): Promise<ScenarioResult> {
  const started = Date.now()
  const store = await suite.seededStore(engine)
  const server = await suite.startQuire(`restart-${engine}`, store)
  const database = await suite.databaseControl(store)
  const { testIds } = await suite.seeded()
  const { apikey } = await suite.login(server, suite.user)
  let crashed = false
  void server.exited.then(() => {
    crashed = true
  })
  const requests = (worker: number, i: number): HttpRequest => {
    const id = testIds[(worker * 7919 + i) % testIds.length]
    switch (i % 4) {
      case 0:
        return { method: 'GET', path: `/api/test/${id}` }
      case 1:
        return { method: 'GET', path: `/api/link?limit=10&filter[val]=$gt:${i % 1000}` }
      case 2:
        return {
          method: 'POST',
          path: '/api/test',
          headers: { apikey, 'content-type': 'application/json' },
          body: JSON.stringify({ foo: `restart-${worker}-${i}` })
        }
      default:
        return {
          method: 'PUT',
          path: `/api/test/${id}`,
          headers: { apikey, 'content-type': 'application/json' },
          body: JSON.stringify({ bar: `restart-${i}` })
        }
    }
  }
  const load = startSteadyLoad(server.client, WORKERS, requests, 30_000)
  const ready = readinessProbe(req => server.client.send(req, 5000), load.started)
  await sleep(BEFORE_MS)
  const downAt = elapsed(load)
  log(`restart ${engine}: stopping PostgreSQL for ${suite.options.downSeconds} s under load`)
  await database.stopServer()
  // A fast shutdown ends the sessions and writes a checkpoint first (about 1 s on a loaded
  // machine): the database is down once the postmaster has exited, and /ready is judged from then.
  const stoppedAt = elapsed(load)
  log(`restart ${engine}: PostgreSQL stopped (${((stoppedAt - downAt) / 1000).toFixed(1)} s to shut down)`)
  await sleep(suite.options.downSeconds * 1000)
  const startAt = elapsed(load)
  await database.startServer()
  const backAt = elapsed(load)
  log(`restart ${engine}: PostgreSQL is back (${((backAt - startAt) / 1000).toFixed(1)} s to start)`)
  await sleep(AFTER_MS)
  const samples = await load.stop()
  const readiness = await ready.stop()
  const exitedDuring = crashed
  await server.stop()
  return judgeRestart(
    suite.options,
    samples,
    readiness,
    { downAt, stoppedAt, startAt, backAt, crashed: exitedDuring, started },
    engine
  )
}

/** ms since the load started: the stop asked, the postmaster gone, the start asked, the server accepting again. */
export interface Timeline {
  downAt: number
  stoppedAt: number
  startAt: number
  backAt: number
  crashed: boolean
  started: number
}

export function judgeRestart(
  options: Pick<Suite['options'], 'statementTimeoutMs' | 'downSeconds'>,
  samples: Sample[],
  readiness: ReadySample[],
  t: Timeline,
  engine: EngineName = 'postgres'
): ScenarioResult {
  const limitMs = options.statementTimeoutMs + MARGIN_MS
  const failed = (s: Sample): boolean => s.status < 200 || s.status >= 300
  const errors500 = samples.filter(s => s.status >= 500 && s.status !== 503 && s.status !== 504)
  const unclear503 = samples.filter(s => s.status === 503 && s.code !== 'UNAVAILABLE')
  const noReply = samples.filter(s => s.status === 0)
  const slow = samples.filter(s => s.ms > limitMs)
  const outage = samples.filter(s => s.at >= t.downAt && s.at < t.backAt)
  const outage503 = outage.filter(s => s.status === 503 && s.code === 'UNAVAILABLE').length
  const lastFailure = samples
    .filter(s => s.at >= t.backAt && failed(s))
    .reduce((last, s) => Math.max(last, s.at + s.ms), t.backAt)
  const recoveryMs = lastFailure - t.backAt
  const okAfter = samples.filter(s => s.at >= t.backAt + RECOVERY_MS && !failed(s)).length
  const before = readiness.filter(r => r.at < t.downAt)
  // Down for sure: probes sent after the postmaster exited and answered before its start was asked
  // (a probe still waiting to reconnect then may reach the database coming back, rightly ready).
  const during = readiness.filter(r => r.at >= t.stoppedAt && r.at + r.ms <= t.startAt)
  const after = readiness.filter(r => r.at >= t.backAt + RECOVERY_MS)
  const readyWorks = before.length > 0 && before.every(r => r.status === 200)
  const readyOk =
    readyWorks &&
    during.length > 0 &&
    during.every(r => r.status === 503) &&
    after.length > 0 &&
    after.every(r => r.status === 200)
  const readyValue = readyWorks
    ? `${during.filter(r => r.status === 503).length}/${during.length} not ready while down`
    : `GET /ready answered ${before[0]?.status ?? 'nothing'} before the stop`
  const checks = [
    check('5xx other than 503', errors500.length === 0, errors500.length),
    check('503 without code UNAVAILABLE', unclear503.length === 0, unclear503.length),
    check('no reply', noReply.length === 0, noReply.length),
    check(
      `slower than ${limitMs} ms`,
      slow.length === 0,
      `${slow.length} (max ${Math.round(Math.max(0, ...samples.map(s => s.ms)))} ms)`
    ),
    check('503 UNAVAILABLE while down', outage503 > 0, `${outage503}/${outage.length}`),
    check('recovered after', recoveryMs <= RECOVERY_MS && okAfter > 0, `${(recoveryMs / 1000).toFixed(1)} s`),
    check('/ready', readyOk, readyValue),
    check('Quire restarted', !t.crashed, t.crashed ? 'yes (it exited)' : 'no')
  ]
  const figures = {
    requests: samples.length,
    downSeconds: options.downSeconds,
    stopSeconds: Number(((t.stoppedAt - t.downAt) / 1000).toFixed(2)),
    requestsWhileDown: outage.length,
    unavailableWhileDown: outage503,
    recoverySeconds: Number((recoveryMs / 1000).toFixed(2)),
    p99Ms: Math.round(
      percentile(
        samples.map(s => s.ms),
        99
      )
    ),
    maxMs: Math.round(Math.max(0, ...samples.map(s => s.ms)))
  }
  const examples = [...errors500, ...unclear503, ...noReply, ...slow]
    .slice(0, 5)
    .map(s => `${s.path}: ${s.status} ${s.code ?? ''} ${s.error ?? ''} after ${Math.round(s.ms)} ms`)
  return resultOf('restart', engine, t.started, checks, figures, examples)
}
