// What the benchmark prints and keeps: progress lines, the results table
// (ratios against the baseline, the previous run's req/s) and the results file (bench/options.ts).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { ANONYMOUS_READS } from './scenarios.ts'

export interface ResultRow {
  scenario: string
  /** postgres (an external server), default (the embedded default) or baseline. */
  engine: string
  /**
   * ok; errors (some responses under load were not 2xx, or failed); failed (the first request
   * was not answered as expected: not measured); skipped (feature missing: not measured).
   */
  status: 'ok' | 'errors' | 'failed' | 'skipped'
  reqPerSec?: number
  p99Ms?: number
  /** CPU time the server process (all its threads) spent per request, in microseconds. */
  serverCpuMicros?: number
  /** CPU time the PostgreSQL backends spent per request, in microseconds (PostgreSQL only). */
  databaseCpuMicros?: number
  /** reqPerSec divided by its yardstick's (the baseline scenario it is compared with). */
  ratio?: number
  /**
   * reqPerSec of the same scenario and engine in the previous run of the same size (its results file before this run).
   */
  previousReqPerSec?: number
  requests?: number
  non2xx?: number
  errors?: number
  timeouts?: number
  /** Change-feed events its subscribers received per second (warm-up and load; the feed scenario only). */
  eventsPerSec?: number
  note?: string
}

const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url))

/** Prints a line, prefixed with the seconds since the run started. */
export function log(message: string): void {
  const [first, ...rest] = message.split('\n')
  process.stdout.write(
    `${`[${(performance.now() / 1000).toFixed(0).padStart(3)} s]`} ${first}\n${rest.map(l => `${l}\n`).join('')}`
  )
}

/** The last quarter of each progress label printed to a log (not a terminal). */
const quartersShown = new Map<string, number>()

/**
 * One line that rewrites itself on a terminal; otherwise a line each time a quarter is passed (batches rarely end on
 * one).
 */
export function showProgress(label: string, done: number, total: number): void {
  const percent = Math.floor((done * 100) / total)
  if (process.stdout.isTTY) {
    process.stdout.write(`\r${label} ${done}/${total} (${percent}%)${done === total ? '\n' : ''}`)
    return
  }
  const quarter = Math.floor((done * 4) / total)
  if (quarter === (quartersShown.get(label) ?? 0)) return
  quartersShown.set(label, quarter)
  log(`${label} ${done}/${total} (${percent}%)`)
}

/** Fills each row's ratio from its yardstick's row (the same for every engine); a baseline row is its own yardstick. */
export function addRatios(rows: ResultRow[], yardstickOf: (scenario: string) => string): void {
  for (const row of rows) {
    const name = row.engine === 'baseline' ? row.scenario : yardstickOf(row.scenario)
    const baseline = rows.find(r => r.engine === 'baseline' && r.scenario === name && r.status === 'ok')?.reqPerSec
    if (baseline && row.reqPerSec !== undefined) row.ratio = row.reqPerSec / baseline
  }
}

/** Fills each row's previousReqPerSec from the last run's results, when there are any. */
export function addPrevious(rows: ResultRow[], file = 'latest.json'): void {
  let previous: ResultRow[]
  try {
    previous = (JSON.parse(readFileSync(`${RESULTS_DIR}${file}`, 'utf8')) as { rows?: ResultRow[] }).rows ?? []
  } catch {
    return
  }
  for (const row of rows) {
    const before = previous.find(
      p => p.scenario === row.scenario && p.engine === row.engine && (p.status === 'ok' || p.status === 'errors')
    )
    if (before?.reqPerSec !== undefined) row.previousReqPerSec = before.reqPerSec
  }
}

function statusText(row: ResultRow): string {
  if (row.status === 'ok') return 'ok'
  if (row.status === 'skipped') return `SKIPPED: ${row.note ?? ''}`
  if (row.status === 'failed') return `FAILED: ${row.note ?? ''}`
  return (
    `ERRORS: ${row.non2xx ?? 0} non-2xx, ${row.errors ?? 0} errors, ${row.timeouts ?? 0} ` +
    `timeouts${row.note ? ` (${row.note})` : ''}`
  )
}

function cells(row: ResultRow): string[] {
  const measured = row.status === 'ok' || row.status === 'errors'
  return [
    row.scenario,
    row.engine,
    measured && row.reqPerSec !== undefined ? row.reqPerSec.toFixed(0) : '-',
    row.previousReqPerSec !== undefined ? row.previousReqPerSec.toFixed(0) : '-',
    measured && row.p99Ms !== undefined ? row.p99Ms.toFixed(1) : '-',
    measured && row.serverCpuMicros !== undefined ? row.serverCpuMicros.toFixed(0) : '-',
    measured && row.databaseCpuMicros !== undefined ? row.databaseCpuMicros.toFixed(0) : '-',
    row.ratio !== undefined ? row.ratio.toFixed(2) : '-',
    statusText(row)
  ]
}

export function formatTable(rows: ResultRow[]): string {
  const header = [
    'scenario',
    'engine',
    'req/s',
    'previous',
    'p99 ms',
    'server CPU us/req',
    'db CPU us/req',
    'x baseline',
    'status'
  ]
  const body = rows.map(cells)
  const widths = header.map((h, i) => Math.max(h.length, ...body.map(r => r[i].length)))
  const numeric = [false, false, true, true, true, true, true, true, false]
  const line = (r: string[]): string =>
    r
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join(' | ')
      .trimEnd()
  return [line(header), widths.map(w => '-'.repeat(w)).join('-|-'), ...body.map(line)].join('\n')
}

/** Whether `ratio` meets `goal`; not judged when one of the rows it comes from had errors. */
function verdictOf(ratio: number, goal: number, rows: ResultRow[]): string {
  if (rows.some(r => r.status !== 'ok')) return 'not judged (errors)'
  return ratio >= goal ? 'met' : 'NOT met'
}

/** The issue's goal: GET by id on PostgreSQL at least GOAL_RATIO of the baseline's req/s. */
export const GOAL_RATIO = 0.8

export function describeGoal(rows: ResultRow[]): string | undefined {
  const row = rows.find(r => r.scenario === 'get-by-id' && r.engine === 'postgres')
  if (row?.ratio === undefined) return undefined
  const verdict = verdictOf(row.ratio, GOAL_RATIO, [row])
  return `goal: get-by-id on postgres at ${row.ratio.toFixed(2)} of the baseline (target >= ${GOAL_RATIO}): ${verdict}`
}

/** The response cache's goal: a cached list (CACHE_ENABLED) at least this share of the bare lookup. */
export const CACHED_LIST_GOAL = 0.9

/** One line per engine: the cached list against the bare lookup, in the same run. */
export function describeCachedList(rows: ResultRow[]): string[] {
  return rows
    .filter(r => r.scenario === 'list-cached' && r.ratio !== undefined)
    .map(
      row =>
        `cache: list-cached on ${row.engine} at ${row.ratio!.toFixed(2)} of the baseline (target ` +
        `>= ${CACHED_LIST_GOAL}): ${verdictOf(row.ratio!, CACHED_LIST_GOAL, [row])}`
    )
}

/**
 * The issue's goal for the embedded default: its get-by-id and list rows at least DEFAULT_GOAL of the same scenarios on
 * PostgreSQL.
 */
export const DEFAULT_GOAL = 0.9
/** The scenarios judged by DEFAULT_GOAL: get-by-id and every list. */
const judgedOnDefault = (scenario: string): boolean => scenario === 'get-by-id' || scenario.startsWith('list')

/** One line: each get-by-id and list row of the default against the same scenario on PostgreSQL, in the same run. */
export function describeDefaultAgainstPostgres(rows: ResultRow[]): string[] {
  const judged = rows
    .filter(r => r.engine === 'default' && judgedOnDefault(r.scenario) && r.reqPerSec !== undefined)
    .flatMap(own => {
      const pg = rows.find(r => r.engine === 'postgres' && r.scenario === own.scenario && r.reqPerSec !== undefined)
      if (!pg) return []
      const ratio = own.reqPerSec! / pg.reqPerSec!
      return [`${own.scenario} ${ratio.toFixed(2)} (${verdictOf(ratio, DEFAULT_GOAL, [own, pg])})`]
    })
  return judged.length === 0
    ? []
    : [`default against postgres, req/s (target >= ${DEFAULT_GOAL}): ${judged.join(', ')}`]
}

/** The issue's feed goal: writes with 100 subscribers at least FEED_COST_GOAL of the writes without. */
export const FEED_COST_GOAL = 0.9

/** Per engine: create-watched's req/s against create's, and the events delivered per second. */
export function describeFeedCost(rows: ResultRow[]): string[] {
  return rows
    .filter(r => r.scenario === 'create-watched' && r.reqPerSec !== undefined)
    .flatMap(watched => {
      const plain = rows.find(r => r.scenario === 'create' && r.engine === watched.engine && r.reqPerSec !== undefined)
      if (!plain) return []
      const ratio = watched.reqPerSec! / plain.reqPerSec!
      const verdict = verdictOf(ratio, FEED_COST_GOAL, [watched, plain])
      return [
        `feed on ${watched.engine}: writes with subscribers at ${ratio.toFixed(2)} of writes without ` +
          `(target >= ${FEED_COST_GOAL}): ${verdict}; ` +
          `${watched.eventsPerSec?.toFixed(0) ?? '-'} events/s delivered`
      ]
    })
}

/** Writes the run to bench/results/<file> (latest.json: the benchmark's) and returns the path. */
export function writeResults(run: Record<string, unknown>, file = 'latest.json'): string {
  mkdirSync(RESULTS_DIR, { recursive: true })
  const path = `${RESULTS_DIR}${file}`
  writeFileSync(path, `${JSON.stringify(run, null, 2)}\n`)
  return path
}

/** The issue's goal for credentials: an authenticated read at least AUTH_GOAL of an anonymous one. */
export const AUTH_GOAL = 0.9
const AUTHENTICATED_READS: Array<[scenario: string, label: string]> = [
  ['get-basic-auth', 'Basic'],
  ['get-api-key', 'API key'],
  ['get-bearer', 'bearer']
]

/**
 * One line per engine that ran an anonymous and an authenticated read: each credential's req/s
 * against the anonymous read's, measured just before them (get-anonymous), else get-by-id's.
 */
export function describeAuthCost(rows: ResultRow[]): string[] {
  const measured = (scenario: string, engine: string): ResultRow | undefined =>
    rows.find(r => r.scenario === scenario && r.engine === engine && r.reqPerSec !== undefined)
  const engines = [...new Set(rows.map(r => r.engine))]
  return engines
    .flatMap(engine => measured(ANONYMOUS_READS, engine) ?? measured('get-by-id', engine) ?? [])
    .flatMap(anonymous => {
      const judged = AUTHENTICATED_READS.flatMap(([scenario, label]) => {
        const read = measured(scenario, anonymous.engine)
        if (!read) return []
        const ratio = read.reqPerSec! / anonymous.reqPerSec!
        return [`${label} ${ratio.toFixed(2)} (${verdictOf(ratio, AUTH_GOAL, [read, anonymous])})`]
      })
      if (judged.length === 0) return []
      return [
        `authenticated reads on ${anonymous.engine} against anonymous ${anonymous.scenario} ` +
          `(${anonymous.reqPerSec!.toFixed(0)} req/s; target >= ${AUTH_GOAL}): ${judged.join(', ')}`
      ]
    })
}

/** One line per engine that ran get-by-id with 1 and with 2 workers: throughput of each and the scaling. */
export function describeScaling(rows: ResultRow[]): string[] {
  return rows
    .filter(r => r.scenario === 'get-by-id-2-workers' && r.reqPerSec !== undefined)
    .flatMap(two => {
      const one = rows.find(r => r.scenario === 'get-by-id' && r.engine === two.engine && r.reqPerSec !== undefined)
      if (!one) return []
      return [
        `workers on ${two.engine}: get-by-id ${one.reqPerSec!.toFixed(0)} req/s with 1 ` +
          `worker, ${two.reqPerSec!.toFixed(0)} req/s with 2: ` +
          `x${(two.reqPerSec! / one.reqPerSec!).toFixed(2)}` +
          (one.status === 'ok' && two.status === 'ok' ? '' : ' (with errors)')
      ]
    })
}
