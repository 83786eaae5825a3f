// Runs a list of scenarios against one running server, one after another,
// printing a line as each starts and finishes.
import { checkFirstRequest, runLoad, type CpuMeters, type LoadSettings } from './load.ts'
import { SkipScenario, type Scenario, type ScenarioContext } from './scenarios.ts'
import { log, type ResultRow } from './report.ts'
import { BENCH_USER } from './seed-data.ts'

/** The server a list of scenarios runs against: its name (the rows' engine) and what is metered. */
export interface BenchTarget { name: string, meters: CpuMeters }

/** The context scenarios build their requests from; the API key is fetched once, on first use. */
export function createScenarioContext (baseUrl: string, testIds: string[]): ScenarioContext {
  let apiKey: Promise<string> | undefined
  const login = async (): Promise<string> => {
    const res = await fetch(`${baseUrl}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(BENCH_USER),
      signal: AbortSignal.timeout(10_000)
    })
    if (res.status === 404) throw new SkipScenario('POST /login is not available')
    const body = await res.json() as { apikey?: string }
    if (!res.ok || !body.apikey) throw new Error(`POST /login answered ${res.status} ${JSON.stringify(body).slice(0, 120)}`)
    return body.apikey
  }
  return {
    baseUrl,
    testIds,
    basicAuth: `Basic ${Buffer.from(`${BENCH_USER.email}:${BENCH_USER.password}`).toString('base64')}`,
    apiKey: () => (apiKey ??= login())
  }
}

async function runScenario (scenario: Scenario, target: BenchTarget, ctx: ScenarioContext, settings: LoadSettings): Promise<ResultRow> {
  const row: ResultRow = { scenario: scenario.name, engine: target.name, status: 'ok' }
  try {
    const spec = await scenario.build(ctx)
    const problem = await checkFirstRequest(ctx.baseUrl, spec)
    if (problem) return { ...row, status: 'failed', note: problem }
    return { ...row, ...await runLoad(ctx.baseUrl, spec, settings, target.meters) }
  } catch (err) {
    return { ...row, status: err instanceof SkipScenario ? 'skipped' : 'failed', note: (err as Error).message }
  }
}

function describeRow (row: ResultRow): string {
  if (row.status === 'skipped' || row.status === 'failed') return `${row.status}: ${row.note}`
  const errors = row.status === 'errors' ? `  !! ${row.non2xx} non-2xx, ${row.errors} errors, ${row.timeouts} timeouts ${row.note ?? ''}` : ''
  return `${row.reqPerSec?.toFixed(0)} req/s, p99 ${row.p99Ms?.toFixed(1)} ms, server CPU ${row.serverCpuMicros?.toFixed(0)} us/req` +
    `${row.databaseCpuMicros === undefined ? '' : `, db CPU ${row.databaseCpuMicros.toFixed(0)} us/req`}${errors}`
}

/** Runs `scenarios` one after another against `target`, one result row each. */
export async function runScenarios (scenarios: Scenario[], target: BenchTarget, ctx: ScenarioContext, settings: LoadSettings): Promise<ResultRow[]> {
  const rows: ResultRow[] = []
  for (const scenario of scenarios) {
    const label = `${target.name.padEnd(8)} ${scenario.name.padEnd(15)}`
    log(`> ${label} running (${settings.warmup} s warm-up + ${settings.duration} s, ${settings.connections} connections)`)
    const row = await runScenario(scenario, target, ctx, settings)
    log(`  ${label} ${describeRow(row)}`)
    rows.push(row)
  }
  return rows
}
