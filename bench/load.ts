// Drives one scenario against one server: a single checked request first, then
// autocannon's load (paths rotated per request), summarized as a result row.
import autocannon from 'autocannon'
import type { ResultRow } from './report.ts'

/** The requests of a scenario; `paths` are taken in turn, one per request. */
export interface LoadSpec {
  method: 'GET' | 'POST'
  paths: string[]
  headers?: Record<string, string>
  body?: string
  /** Checks the first response's body; returns what is wrong, if anything. */
  expect?: (body: string) => string | undefined
}

export interface LoadSettings {
  duration: number
  connections: number
  warmup: number
}

/** Starts measuring a CPU consumer; the returned function gives the CPU microseconds it used since. */
export type CpuMeter = () => Promise<() => Promise<number>>

/** What is charged per request: the server process, and the database backends when they can be read. */
export interface CpuMeters {
  server: CpuMeter
  database?: CpuMeter
}

function headersOf(spec: LoadSpec): Record<string, string> {
  return { ...(spec.body !== undefined && { 'content-type': 'application/json' }), ...spec.headers }
}

/** Sends the scenario's first request once; a non-2xx answer is returned as a short description. */
export async function checkFirstRequest(baseUrl: string, spec: LoadSpec): Promise<string | undefined> {
  const res = await fetch(baseUrl + spec.paths[0], {
    method: spec.method,
    headers: headersOf(spec),
    body: spec.body,
    signal: AbortSignal.timeout(10_000)
  })
  const text = await res.text()
  if (!res.ok) return `HTTP ${res.status} ${text.slice(0, 160)}`
  return spec.expect?.(text)
}

/** One request whose path moves to the next of `paths` each time (no per-request hook for a single path). */
function requestsOf(spec: LoadSpec): autocannon.Request[] {
  if (spec.paths.length === 1) return [{ method: spec.method, path: spec.paths[0] }]
  let next = 0
  return [
    {
      method: spec.method,
      path: spec.paths[0],
      setupRequest: request => ({ ...request, path: spec.paths[next++ % spec.paths.length] })
    }
  ]
}

/** "500 x12, 429 x3": the non-2xx status codes autocannon saw, most frequent first. */
function describeStatusCodes(stats: Record<string, { count?: number }> = {}): string {
  return Object.entries(stats)
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, { count }]) => [code, count ?? 0] as const)
    .sort((a, b) => b[1] - a[1])
    .map(([code, count]) => `${code} x${count}`)
    .join(', ')
}

type Measured = Pick<
  ResultRow,
  | 'status'
  | 'reqPerSec'
  | 'p99Ms'
  | 'serverCpuMicros'
  | 'databaseCpuMicros'
  | 'requests'
  | 'non2xx'
  | 'errors'
  | 'timeouts'
  | 'note'
>

/** Runs autocannon against `baseUrl` (an unmeasured warm-up first) and returns the measured part of a result row. */
export async function runLoad(
  baseUrl: string,
  spec: LoadSpec,
  settings: LoadSettings,
  meters: CpuMeters
): Promise<Measured> {
  const options = {
    url: baseUrl,
    connections: settings.connections,
    method: spec.method,
    headers: headersOf(spec),
    body: spec.body,
    requests: requestsOf(spec)
  }
  if (settings.warmup > 0) await autocannon({ ...options, duration: settings.warmup })
  const serverCpu = await meters.server()
  const databaseCpu = await meters.database?.()
  const result = await autocannon({ ...options, duration: settings.duration })
  const perRequest = (micros: number): number | undefined =>
    result.requests.total > 0 ? micros / result.requests.total : undefined
  const failed = result.non2xx + result.errors + result.timeouts
  const none = result.requests.total === 0
  return {
    status: failed > 0 || none ? 'errors' : 'ok',
    reqPerSec: result.requests.average,
    p99Ms: result.latency.p99,
    serverCpuMicros: perRequest(await serverCpu()),
    databaseCpuMicros: databaseCpu && perRequest(await databaseCpu()),
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    ...(result.non2xx > 0 && { note: `status ${describeStatusCodes(result.statusCodeStats)}` }),
    ...(none && { note: 'no response completed during the run' })
  }
}
