// Runs a list of scenarios against running servers (one per engine, side by side), one after
// another, each on every engine in turns, printing a line as each starts and finishes.
import { checkFirstRequest, runLoad, type CpuMeter, type CpuMeters, type LoadSettings } from './load.ts'
import type { ChildServer } from './child-server.ts'
import { INTERLEAVED, SkipScenario, type Lack, type Scenario, type ScenarioContext } from './scenarios.ts'
import { log, type ResultRow } from './report.ts'
import { BENCH_USER } from './seed-data.ts'
import { openSubscribers } from './feed-subscribers.ts'

/** A server the scenarios run against: its name (the rows' engine), how to start it, what else is metered. */
export interface BenchTarget {
  name: string
  start: () => Promise<ChildServer>
  /** CPU of the database backends, when they are separate processes. */
  databaseCpu?: CpuMeter
  /** What its engine cannot serve: scenarios that need it are skipped with this reason. */
  lacks?: Partial<Record<Lack, string>>
}

/** The context scenarios build their requests from; the bench user logs in once, on first use (API key and token). */
export function createScenarioContext(baseUrl: string, testIds: string[]): ScenarioContext {
  let credentials: Promise<{ apikey: string; token: string }> | undefined
  const login = async (): Promise<{ apikey: string; token: string }> => {
    const res = await fetch(`${baseUrl}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(BENCH_USER),
      signal: AbortSignal.timeout(10_000)
    })
    if (res.status === 404) throw new SkipScenario('POST /login is not available')
    const body = (await res.json()) as { apikey?: string; token?: string }
    if (!res.ok || !body.apikey || !body.token)
      throw new Error(`POST /login answered ${res.status} ${JSON.stringify(body).slice(0, 120)}`)
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

async function runScenario(
  scenario: Scenario,
  target: BenchTarget,
  ctx: ScenarioContext,
  meters: CpuMeters,
  settings: LoadSettings
): Promise<ResultRow> {
  const row: ResultRow = { scenario: scenario.name, engine: target.name, status: 'ok' }
  const lacking = scenario.needs && target.lacks?.[scenario.needs]
  if (lacking) return { ...row, status: 'skipped', note: lacking }
  try {
    const spec = await scenario.build(ctx)
    const problem = await checkFirstRequest(ctx.baseUrl, spec)
    if (problem) return { ...row, status: 'failed', note: problem }
    if (!scenario.subscribers) return { ...row, ...(await runLoad(ctx.baseUrl, spec, settings, meters)) }
    const subscribers = await openSubscribers(ctx.baseUrl, await ctx.apiKey(), scenario.subscribers)
    try {
      const [before, started] = [await subscribers.counts(), performance.now()]
      const load = await runLoad(ctx.baseUrl, spec, settings, meters)
      const after = await subscribers.counts()
      const seconds = (performance.now() - started) / 1000
      log(
        `  the subscribers' process used ${((after.cpuMicros - before.cpuMicros) / 1e6).toFixed(1)} s of ` +
          `CPU in ${seconds.toFixed(1)} s`
      )
      return { ...row, ...load, eventsPerSec: (after.events - before.events) / seconds }
    } finally {
      await subscribers.close()
    }
  } catch (err) {
    return { ...row, status: err instanceof SkipScenario ? 'skipped' : 'failed', note: (err as Error).message }
  }
}

function describeRow(row: ResultRow): string {
  if (row.status === 'skipped' || row.status === 'failed') return `${row.status}: ${row.note}`
  const errors =
    row.status === 'errors'
      ? `  !! ${row.non2xx} non-2xx, ${row.errors} errors, ${row.timeouts} timeouts ${row.note ?? ''}`
      : ''
  const events = row.eventsPerSec === undefined ? '' : `, ${row.eventsPerSec.toFixed(0)} events/s delivered`
  return (
    `${row.reqPerSec?.toFixed(0)} req/s${events}, p99 ${row.p99Ms?.toFixed(1)} ms, server ` +
    `CPU ${row.serverCpuMicros?.toFixed(0)} us/req` +
    `${row.databaseCpuMicros === undefined ? '' : `, db CPU ${row.databaseCpuMicros.toFixed(0)} us/req`}${errors}`
  )
}

/**
 * The first scenario on a server just started warms up at least this long: a new server serves
 * its first seconds slower (V8 still compiling its hot paths, caches cold; it once measured the
 * first get-by-id at half the speed of the reads after it), which made every later scenario look
 * better than it.
 */
const FRESH_SERVER_WARMUP_SECONDS = 8

/**
 * Turns a step of more than one member (a scenario on several engines, a group of INTERLEAVED
 * scenarios) takes at least, each measuring a share of the duration (rounded up); a larger group
 * takes one turn per scenario, so that with the order rotated each turn (inTurnOrder) every
 * scenario runs once in every position.
 */
const MIN_TURNS = 3

/**
 * A group's order in its turn (counted from 0), rotated one place each turn, so that no member
 * always runs in the same place (after the same one, or first after the scenarios before it).
 */
function inTurnOrder<T>(step: T[], turn: number): T[] {
  const shift = turn % step.length
  return [...step.slice(shift), ...step.slice(0, shift)]
}

/**
 * The scenarios in the order they run, as steps: one scenario, or a group of INTERLEAVED ones
 * (at least two of it selected, where the first of them stands), run in turns (MIN_TURNS at least, in rotated order:
 * inTurnOrder).
 */
function stepsOf(scenarios: Scenario[]): Scenario[][] {
  const groups = INTERLEAVED.map(names => scenarios.filter(s => names.includes(s.name))).filter(
    group => group.length > 1
  )
  return scenarios.flatMap(s => {
    const group = groups.find(g => g.includes(s))
    return group === undefined ? [[s]] : group[0] === s ? [group] : []
  })
}

/** The middle of `values` (the mean of the two middle ones for an even count); undefined when one is missing. */
function median(values: Array<number | undefined>): number | undefined {
  if (values.some(v => v === undefined)) return undefined
  const sorted = [...(values as number[])].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/**
 * One row from a scenario's turns: the median turn's req/s and CPU per request (a window in which
 * the machine was busy with something else counts no more than one in which it was idle), the worst
 * p99, every request and error, and the status.
 */
function mergeTurns(turns: ResultRow[]): ResultRow {
  const measured = turns.filter(t => t.requests !== undefined)
  const unmeasured = turns.find(t => t.status === 'failed' || t.status === 'skipped')
  if (unmeasured || measured.length === 0) return unmeasured ?? turns[0]
  const sum = (pick: (t: ResultRow) => number | undefined): number | undefined =>
    measured.every(t => pick(t) !== undefined) ? measured.reduce((n, t) => n + pick(t)!, 0) : undefined
  const notes = measured.flatMap(t => t.note ?? [])
  return {
    ...measured[0],
    status: measured.some(t => t.status === 'errors') ? 'errors' : 'ok',
    reqPerSec: median(measured.map(t => t.reqPerSec)),
    p99Ms: Math.max(...measured.map(t => t.p99Ms ?? 0)),
    serverCpuMicros: median(measured.map(t => t.serverCpuMicros)),
    databaseCpuMicros: median(measured.map(t => t.databaseCpuMicros)),
    ...(measured.some(t => t.eventsPerSec !== undefined) && {
      eventsPerSec: median(measured.map(t => t.eventsPerSec))
    }),
    requests: sum(t => t.requests),
    non2xx: sum(t => t.non2xx),
    errors: sum(t => t.errors),
    timeouts: sum(t => t.timeouts),
    ...(notes.length > 0 && { note: notes.join('; ') })
  }
}

interface Running {
  target: BenchTarget
  server: ChildServer
  fresh: boolean
  ctx: ScenarioContext
}

/** One scenario on one server: what a step runs in turns. */
interface Member {
  scenario: Scenario
  target: BenchTarget
}

/**
 * Runs `scenarios` one after another, each on every server started from `targets` (the engines:
 * their servers run side by side, idle but for the one being measured), in turns whenever a step
 * has more than one member: a scenario on two engines, or a group of INTERLEAVED ones (stepsOf).
 * The engines' rows are compared with each other (the default's against PostgreSQL's), and one
 * window each would let whatever else ran on the machine then decide the ratio: on a shared
 * machine, the same scenario measured a few minutes apart moved by up to a factor of two. A
 * scenario whose target is `baseline` runs on a server started from `baseline` for its step.
 * Requests that autocannon gave up on (timeouts, connection errors, or still unanswered at the
 * end) may still be queued in a server, so after a step with errors on a server that server is
 * restarted: the next step must not inherit that backlog.
 */
export async function runScenarios(
  scenarios: Scenario[],
  targets: BenchTarget[],
  testIds: string[],
  settings: LoadSettings,
  baseline?: BenchTarget
): Promise<ResultRow[]> {
  const rows: ResultRow[] = []
  const start = async (of: BenchTarget): Promise<Running> => {
    const server = await of.start()
    return { target: of, server, fresh: true, ctx: createScenarioContext(server.url, testIds) }
  }
  const running = new Map<BenchTarget, Running>()
  try {
    for (const target of targets) running.set(target, await start(target))
    for (const step of stepsOf(scenarios)) {
      const aside = step.some(s => s.target === 'baseline') && baseline ? await start(baseline) : undefined
      const members: Member[] = step.flatMap(scenario =>
        scenario.target === 'baseline' && aside
          ? [{ scenario, target: aside.target }]
          : targets.map(target => ({ scenario, target }))
      )
      const turns = members.length > 1 ? Math.max(MIN_TURNS, step.length) : 1
      const duration = Math.ceil(settings.duration / turns)
      const measured = new Map<Member, ResultRow[]>(members.map(m => [m, []]))
      try {
        for (let turn = 1; turn <= turns; turn++) {
          for (const member of inTurnOrder(members, turn - 1)) {
            const { scenario } = member
            const on = member.target === aside?.target ? aside : running.get(member.target)!
            const label = `${on.target.name.padEnd(8)} ${scenario.name.padEnd(15)}`
            const own = {
              ...settings,
              duration,
              warmup: Math.max(
                settings.warmup,
                turn === 1 ? (scenario.minWarmup ?? 0) : 0,
                on.fresh ? FRESH_SERVER_WARMUP_SECONDS : 0
              )
            }
            on.fresh = false
            const of = turns > 1 ? ` (turn ${turn} of ${turns})` : ''
            log(`> ${label} running${of} (${own.warmup} s warm-up + ${own.duration} s, ${own.connections} connections)`)
            const row = await runScenario(
              scenario,
              on.target,
              on.ctx,
              { server: on.server.cpuMeter, database: on.target.databaseCpu },
              own
            )
            log(`  ${label} ${describeRow(row)}${of}`)
            measured.get(member)!.push(row)
          }
        }
      } finally {
        await aside?.server.stop()
      }
      const merged = members.map(m => mergeTurns(measured.get(m)!))
      if (turns > 1)
        for (const row of merged)
          log(`  ${row.engine.padEnd(8)} ${row.scenario.padEnd(15)} ${describeRow(row)} (${turns} turns)`)
      rows.push(...merged)
      for (const target of targets) {
        if (!merged.some(row => row.status === 'errors' && row.engine === target.name)) continue
        log(`  restarting the ${target.name} server (requests may still be queued)`)
        await running.get(target)!.server.stop()
        running.delete(target)
        running.set(target, await start(target))
      }
    }
  } finally {
    for (const { server } of running.values()) await server.stop()
  }
  return rows
}
