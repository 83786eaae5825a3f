// Soak: RELIABILITY_SOAK_SECONDS of mixed load (reads by id, filtered lists,
// counts, aggregations, creates and updates) driven by autocannon in windows of
// equal length, the first tenth a warm-up. Memory and descriptors are sampled every
// second. The last third of the run is judged against the first third: resident
// memory (a window's floor, its lowest sample, memory after a garbage collection;
// the median window of each third) must grow less than 10%, and throughput (the
// upper quartile window of each third) fall less than 10%. Open file descriptors
// and database connections must not grow, and no request may fail (load shedding,
// a 503 with Retry-After, is counted apart and must stay under 1%).
import { readFileSync, readdirSync } from 'node:fs'
import type { IncomingHttpHeaders } from 'node:http'
import autocannon from 'autocannon'
import { log } from '../../bench/report.ts'
import { connectSql } from '../../bench/sql-connection.ts'
import type { Store } from '../../bench/store.ts'
import type { EngineName } from '../options.ts'
import { check, resultOf, type ScenarioResult } from '../report.ts'
import type { QuireServer, Suite } from '../stack.ts'
import { percentile } from '../steady-load.ts'

const CONNECTIONS = 10
const MAX_RSS_GROWTH = 0.1
const MAX_THROUGHPUT_DROP = 0.1
/** Descriptors that may come and go (sockets in TIME_WAIT handover, the log pipe) without being a leak. */
const FD_SLACK = 10
/** Load shedding (503 with Retry-After while the database is busy) is not a failure, but it must stay rare. */
const MAX_SHED_SHARE = 0.01

/**
 * rssMb: the median of the window's per-second samples; rssFloorMb: the lowest (memory just after a garbage
 * collection).
 */
interface Window {
  requests: number
  reqPerSec: number
  p99Ms: number
  non2xx: number
  errors: number
  rssMb: number
  rssFloorMb: number
  fds: number
  connections?: number
}

/**
 * What went wrong: examples of failed requests (the first ones: a non-2xx reply with its request
 * and body, or a request error), and how many replies were load shedding (a 503 with Retry-After:
 * the database was busy; counted apart, as in the fuzz).
 */
const MAX_EXAMPLES = 20
interface Failures {
  examples: string[]
  shed: number
  add: (example: string) => void
}

function collectFailures(): Failures {
  const failures: Failures = {
    examples: [],
    shed: 0,
    add: example => {
      if (failures.examples.length < MAX_EXAMPLES) failures.examples.push(`${new Date().toISOString()} ${example}`)
    }
  }
  return failures
}

/** Adds to each request an onResponse that counts shedding and keeps other non-2xx replies as examples. */
function recordingFailures(requests: autocannon.Request[], failures: Failures): autocannon.Request[] {
  return requests.map(r => ({
    ...r,
    onResponse: (status: number, body: string, context: { path?: string }, headers?: IncomingHttpHeaders) => {
      if (status === 503 && headers?.['retry-after'] !== undefined) failures.shed++
      else if (status < 200 || status > 299)
        failures.add(`${r.method} ${context.path ?? r.path} -> ${status} ${body.slice(0, 300)}`)
    },
    setupRequest: (req: autocannon.Request, context: { path?: string }) => {
      const next = typeof r.setupRequest === 'function' ? r.setupRequest(req, context) : req
      if (next) context.path = next.path
      return next
    }
  }))
}

function processFigures(pid: number): { rssMb: number; fds: number } {
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)
  return { rssMb: Math.round(rssKb / 1024), fds: readdirSync(`/proc/${pid}/fd`).length }
}

function mixedRequests(testIds: string[], apikey: string): autocannon.Request[] {
  let n = 0
  const id = (): string => testIds[(n++ * 7919) % testIds.length]
  const headers = { apikey, 'content-type': 'application/json' }
  return [
    { method: 'GET', path: '/api/test/x', setupRequest: r => ({ ...r, path: `/api/test/${id()}` }) },
    {
      method: 'GET',
      path: '/api/test?limit=10',
      setupRequest: r => ({ ...r, path: `/api/test?filter[foo]=foo-${n++ % 100}&limit=10` })
    },
    { method: 'GET', path: '/api/test/x', setupRequest: r => ({ ...r, path: `/api/test/${id()}?populate=link` }) },
    { method: 'GET', path: '/count/link?filter[val]=$lt:1000' },
    {
      method: 'POST',
      path: '/aggregate/test',
      headers,
      body: JSON.stringify([{ $match: { foo: 'foo-7' } }, { $group: { _id: '$yack.s', n: { $sum: 1 } } }])
    },
    {
      method: 'PUT',
      path: '/api/test/x',
      headers,
      setupRequest: r => ({ ...r, path: `/api/test/${id()}`, body: JSON.stringify({ bar: `soak-${n}` }) })
    },
    { method: 'POST', path: '/api/test', headers, body: JSON.stringify({ foo: 'soak', yack: { s: 'soak', n: 1 } }) }
  ]
}

/**
 * Counts Quire's connections to the store's database, through a connection of its own, closed
 * before the server stops (on the default, the server stops its PostgreSQL only when it is the
 * last client out).
 */
function databaseConnections(store: Store): { count: () => Promise<number | undefined>; close: () => Promise<void> } {
  const sql = connectSql(store.url, { max: 1 })
  return {
    count: async () =>
      Number((await sql`SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'quire'`)[0].n),
    close: () => sql.end({ timeout: 5 })
  }
}

/**
 * Runs one window of load; memory and descriptors are sampled every second and their medians kept (GC makes single
 * samples noisy).
 */
async function runWindow(
  server: QuireServer,
  requests: autocannon.Request[],
  seconds: number,
  connections: () => Promise<number | undefined>,
  failures: Failures
): Promise<Window> {
  const samples: Array<{ rssMb: number; fds: number }> = []
  const sampler = setInterval(() => samples.push(processFigures(server.pid)), 1000)
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      { url: server.url, connections: CONNECTIONS, duration: seconds, requests },
      (err, done) => (err ? reject(err) : resolve(done))
    )
    instance.on('reqError', (err: Error) => failures.add(`request error: ${err.message}`))
  })
  clearInterval(sampler)
  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
  return {
    requests: result.requests.total,
    reqPerSec: Math.round(result.requests.average),
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    rssMb: median(samples.map(x => x.rssMb)),
    rssFloorMb: Math.min(...samples.map(x => x.rssMb)),
    fds: median(samples.map(x => x.fds)),
    connections: await connections()
  }
}

export async function runSoak(suite: Suite, engine: EngineName): Promise<ScenarioResult> {
  const started = Date.now()
  const store = await suite.seededStore(engine)
  const server = await suite.startQuire(`soak-${engine}`, store)
  const { testIds } = await suite.seeded()
  const { apikey } = await suite.login(server, suite.user)
  const failures = collectFailures()
  const requests = recordingFailures(mixedRequests(testIds, apikey), failures)
  const windowSeconds = suite.options.quick ? 10 : 30
  const count = Math.max(3, Math.round(suite.options.soakSeconds / windowSeconds))
  const warmup = Math.max(1, Math.round(count / 10))
  const connections = databaseConnections(store)
  const windows: Window[] = []
  try {
    for (let i = 0; i < count; i++) {
      windows.push(await runWindow(server, requests, windowSeconds, connections.count, failures))
      const w = windows[i]
      log(
        `soak ${engine} ${i + 1}/${count}${i < warmup ? ' (warm-up)' : ''}: ${w.reqPerSec} req/s, ` +
          `p99 ${w.p99Ms} ms, RSS ${w.rssMb} MB, ${w.fds} ` +
          `fds${w.connections !== undefined ? `, ${w.connections} db connections` : ''}, ` +
          `non-2xx ${w.non2xx}, errors ${w.errors}`
      )
    }
  } finally {
    await connections.close()
  }
  await server.stop()
  return judge(engine, started, windows.slice(warmup), windows, failures)
}

/** The first and the last third of the measured windows (one window each at least). */
function outerThirds<W>(measured: W[]): [W[], W[]] {
  const third = Math.max(1, Math.floor(measured.length / 3))
  return [measured.slice(0, third), measured.slice(-third)]
}

/** One figure of the first third's windows and of the last third's, at percentile `p` of each. */
function outerThirdsAt<W>(measured: W[], figure: (w: W) => number, p: number): [number, number] {
  const [firstThird, lastThird] = outerThirds(measured)
  return [percentile(firstThird.map(figure), p), percentile(lastThird.map(figure), p)]
}

/**
 * The growth of resident memory: the floor (lowest per-second sample: memory just after a garbage
 * collection) of the median window of the last third against the first third's. A leak raises every
 * window's floor; between collections RSS saws up and down by a quarter or more (170-257 MB in one run),
 * and a single deep collection can take one window's floor 50 MB under its neighbours': the lowest floor
 * of a third judged when that collection fell (196 against 235-256 MB medians in one run).
 */
export function rssGrowth(measured: Array<{ rssFloorMb: number }>): {
  startFloor: number
  endFloor: number
  growth: number
} {
  const [startFloor, endFloor] = outerThirdsAt(measured, w => w.rssFloorMb, 50)
  return { startFloor, endFloor, growth: (endFloor - startFloor) / startFloor }
}

/**
 * The throughput of the last third of the measured windows against the first third's, each the upper
 * quartile (the second best of six windows). A slowdown that grows lowers every window of a third; a
 * passing event that spans up to half of one does not decide. The embedded server's timed checkpoint
 * (fsync on) starts 5 minutes after the server, so in a 10-minute soak always within the last third:
 * its writes, and the kernel flushing them, took 5-25% off the three windows they spanned (504-588
 * against 602-663 req/s in one run), enough to move that third's median window.
 */
export function throughputChange(measured: Array<{ reqPerSec: number }>): {
  startThroughput: number
  endThroughput: number
  drop: number
} {
  const [startThroughput, endThroughput] = outerThirdsAt(measured, w => w.reqPerSec, 75)
  return { startThroughput, endThroughput, drop: 1 - endThroughput / startThroughput }
}

function judge(
  engine: EngineName,
  started: number,
  measured: Window[],
  all: Window[],
  failures: Failures
): ScenarioResult {
  const first = measured[0]
  const last = measured[measured.length - 1]
  const { startFloor, endFloor, growth } = rssGrowth(measured)
  const { startThroughput, endThroughput, drop } = throughputChange(measured)
  const requests = all.reduce((n, w) => n + w.requests, 0)
  const failed = all.reduce((n, w) => n + w.non2xx + w.errors, 0) - failures.shed
  const maxConnections = Math.max(...measured.map(w => w.connections ?? 0))
  const checks = [
    check(
      'RSS growth',
      growth < MAX_RSS_GROWTH,
      `${(growth * 100).toFixed(1)}% ` +
        `(floor ${startFloor} -> ${endFloor} MB, median windows of the first and last third)`
    ),
    check('fds', last.fds <= first.fds + FD_SLACK, `${first.fds} -> ${last.fds}`),
    check(
      'db connections',
      first.connections === undefined || maxConnections <= first.connections + 1,
      first.connections === undefined ? 'n/a' : `${first.connections} -> ${last.connections} (max ${maxConnections})`
    ),
    check(
      'throughput end/start',
      drop <= MAX_THROUGHPUT_DROP,
      `${endThroughput}/${startThroughput} req/s ` +
        `(${(-drop * 100).toFixed(1)}%, upper quartile windows of the last and first third)`
    ),
    check('failed requests', failed === 0, failed),
    check(
      'shed with 503 + Retry-After',
      failures.shed <= requests * MAX_SHED_SHARE,
      `${failures.shed} (at most ${Math.floor(requests * MAX_SHED_SHARE)})`
    )
  ]
  const figures = {
    seconds: Math.round((Date.now() - started) / 1000),
    requests,
    reqPerSec: all.map(w => w.reqPerSec).join(' '),
    rssMb: all.map(w => w.rssMb).join(' '),
    rssFloorMb: all.map(w => w.rssFloorMb).join(' '),
    fds: all.map(w => w.fds).join(' '),
    dbConnections: all.map(w => w.connections ?? '-').join(' ')
  }
  return resultOf('soak', engine, started, checks, figures, failures.examples)
}
