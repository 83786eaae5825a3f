// Runs a list of scenarios against one running server, one after another,
// printing a line as each starts and finishes.
import { checkFirstRequest, runLoad, type CpuMeter, type CpuMeters, type LoadSettings } from './load.ts'
import type { ChildServer } from './child-server.ts'
import { SkipScenario, type Scenario, type ScenarioContext } from './scenarios.ts'
import { log, type ResultRow } from './report.ts'
import { BENCH_USER } from './seed-data.ts'
import { openSubscribers } from './feed-subscribers.ts'

/** A server the scenarios run against: its name (the rows' engine), how to start it, what else is metered. */
export interface BenchTarget {
  name: string
  start: () => Promise<ChildServer>
  /** CPU of the database backends, when they are separate processes. */
  databaseCpu?: CpuMeter
}

/** The context scenarios build their requests from; the bench user logs in once, on first use (API key and token). */
export function createScenarioContext (baseUrl: string, testIds: string[]): ScenarioContext {
  let credentials: Promise<{ apikey: string, token: string }> | undefined
  const login = async (): Promise<{ apikey: string, token: string }> => {
    const res = await fetch(`${baseUrl}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(BENCH_USER),
      signal: AbortSignal.timeout(10_000)
    })
    if (res.status === 404) throw new SkipScenario('POST /login is not available')
    const body = await res.json() as { apikey?: string, token?: string }
    if (!res.ok || !body.apikey || !body.token) throw new Error(`POST /login answered ${res.status} ${JSON.stringify(body).slice(0, 120)}`)
    return { apikey: body.apikey, token: body.token }
  }
  return {
    baseUrl,
    testIds,
    basicAuth: `Basic ${Buffer.from(`${BENCH_USER.email}:${BENCH_USER.password}`).toString('base64')}`,
    apiKey: async () => (await (credentials ??= login())).apikey,
    token: async () => (await (credentials ??= login())).token
  }
}

async function runScenario (scenario: Scenario, engine: string, ctx: ScenarioContext, meters: CpuMeters, settings: LoadSettings): Promise<ResultRow> {
  const row: ResultRow = { scenario: scenario.name, engine, status: 'ok' }
  try {
    const spec = await scenario.build(ctx)
    const problem = await checkFirstRequest(ctx.baseUrl, spec)
    if (problem) return { ...row, status: 'failed', note: problem }
    if (!scenario.subscribers) return { ...row, ...await runLoad(ctx.baseUrl, spec, settings, meters) }
    const subscribers = await openSubscribers(ctx.baseUrl, await ctx.apiKey(), scenario.subscribers)
    try {
      const [before, started] = [await subscribers.counts(), performance.now()]
      const load = await runLoad(ctx.baseUrl, spec, settings, meters)
      const after = await subscribers.counts()
      const seconds = (performance.now() - started) / 1000
      log(`  the subscribers' process used ${((after.cpuMicros - before.cpuMicros) / 1e6).toFixed(1)} s of CPU in ${seconds.toFixed(1)} s`)
      return { ...row, ...load, eventsPerSec: (after.events - before.events) / seconds }
    } finally {
      await subscribers.close()
    }
  } catch (err) {
    return { ...row, status: err instanceof SkipScenario ? 'skipped' : 'failed', note: (err as Error).message }
  }
}

function describeRow (row: ResultRow): string {
  if (row.status === 'skipped' || row.status === 'failed') return `${row.status}: ${row.note}`
  const errors = row.status === 'errors' ? `  !! ${row.non2xx} non-2xx, ${row.errors} errors, ${row.timeouts} timeouts ${row.note ?? ''}` : ''
  const events = row.eventsPerSec === undefined ? '' : `, ${row.eventsPerSec.toFixed(0)} events/s delivered`
  return `${row.reqPerSec?.toFixed(0)} req/s${events}, p99 ${row.p99Ms?.toFixed(1)} ms, server CPU ${row.serverCpuMicros?.toFixed(0)} us/req` +
    `${row.databaseCpuMicros === undefined ? '' : `, db CPU ${row.databaseCpuMicros.toFixed(0)} us/req`}${errors}`
}

/**
 * The first scenario on a server just started warms up at least this long: a new PGlite server
 * serves its first seconds at half speed (get-by-id 889 req/s after 1 s of warm-up, against
 * 1,775 for the authenticated reads after it), which made every later scenario look better than it.
 */
const FRESH_SERVER_WARMUP_SECONDS = 8

/**
 * Runs `scenarios` one after another against a server started from `target`. Requests that
 * autocannon gave up on (timeouts, connection errors, or still unanswered at the end) may still
 * be queued in the server, so after a scenario with errors the server is restarted: the next
 * one must not inherit that backlog.
 */
export async function runScenarios (scenarios: Scenario[], target: BenchTarget, testIds: string[], settings: LoadSettings): Promise<ResultRow[]> {
  const rows: ResultRow[] = []
  let server = await target.start()
  let fresh = true
  try {
    for (const scenario of scenarios) {
      const label = `${target.name.padEnd(8)} ${scenario.name.padEnd(15)}`
      const own = { ...settings, warmup: Math.max(settings.warmup, scenario.minWarmup ?? 0, fresh ? FRESH_SERVER_WARMUP_SECONDS : 0) }
      fresh = false
      log(`> ${label} running (${own.warmup} s warm-up + ${own.duration} s, ${own.connections} connections)`)
      const ctx = createScenarioContext(server.url, testIds)
      const row = await runScenario(scenario, target.name, ctx, { server: server.cpuMeter, database: target.databaseCpu }, own)
      log(`  ${label} ${describeRow(row)}`)
      rows.push(row)
      if (row.status === 'errors') {
        log(`  restarting the ${target.name} server (requests may still be queued)`)
        await server.stop()
        server = await target.start()
        fresh = true
      }
    }
  } finally {
    await server.stop()
  }
  return rows
}
