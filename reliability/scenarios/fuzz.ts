// Fuzz: requests generated from the route schemas and the models (fuzz/), in
// two phases on the seeded store. The hostile phase (80%) sends reads of every
// kind and writes that must be refused; a digest of every table before and
// after proves that refused requests changed nothing. The valid phase (20%)
// adds writes that should succeed. Throughout: no 5xx (load shedding, a 503
// with Retry-After, is counted apart and must stay under 1%), no crash, every
// request answered, and the health probe answering.
import { log } from '../../bench/report.ts'
import { USER_MODEL } from '../../src/auth/users/user-model.ts'
import { loadModels } from '../../src/models/load-models.ts'
import { digestStore } from '../digest.ts'
import { startHealthProbe, type ProbeSummary } from '../health-probe.ts'
import type { EngineName } from '../options.ts'
import { check, resultOf, type ScenarioResult } from '../report.ts'
import type { Suite } from '../stack.ts'
import type { Store } from '../../bench/store.ts'
import { drivePhase, type PhaseStats } from '../fuzz/drive.ts'
import { drawPools } from '../fuzz/pools.ts'
import { createChoice } from '../fuzz/random-choice.ts'
import { createRequestGenerator, type FuzzMode, type FuzzTarget } from '../fuzz/requests.ts'

const HOSTILE_SHARE = 0.8
/** Load shedding (503 with Retry-After while the database is busy) is not a failure, but it must stay rare. */
const MAX_SHED_SHARE = 0.01

async function phase(
  suite: Suite,
  engine: EngineName,
  store: Store,
  target: FuzzTarget,
  mode: FuzzMode,
  count: number,
  seed: number
): Promise<{ stats: PhaseStats; probe: ProbeSummary }> {
  const server = await suite.startQuire(`fuzz-${engine}-${mode}`, store)
  const probe = startHealthProbe(suite.clientFor(server, 1))
  const choice = createChoice(seed, drawPools(seed))
  const stats = await drivePhase(server, {
    label: `fuzz ${engine} ${mode}`,
    count,
    connections: suite.options.fuzzConnections,
    deadlineSeconds: 120 + Math.ceil(count / 100),
    next: createRequestGenerator(choice, target, mode),
    onAccepted: (req, body) => {
      const model = /^\/api\/([a-z_]+)$/.exec(req.path)?.[1]
      if (req.method === 'POST' && model && typeof body?.data?._id === 'string') target.ids[model]?.push(body.data._id)
    }
  })
  const summary = await probe.stop()
  await server.stop()
  return { stats, probe: summary }
}

export async function runFuzz(suite: Suite, engine: EngineName): Promise<ScenarioResult> {
  const started = Date.now()
  const store = await suite.seededStore(engine)
  const { fuzzTestIds, fuzzLinkIds } = await suite.seeded()
  const setup = await suite.startQuire(`fuzz-${engine}-setup`, store)
  const admin = await suite.login(setup, suite.admin)
  const user = await suite.login(setup, suite.user)
  await setup.stop()
  const target: FuzzTarget = {
    models: [...loadModels(suite.modelsDir, [USER_MODEL]).values()],
    ids: { test: fuzzTestIds, link: fuzzLinkIds, kinds: [], user: [admin.user_id, user.user_id] },
    identities: { admin: { ...suite.admin, apikey: admin.apikey }, user: { ...suite.user, apikey: user.apikey } },
    onPassword: p => suite.scanner.addStoredPassword(p)
  }
  const hostileCount = Math.round(suite.options.fuzzRequests * HOSTILE_SHARE)
  const before = await digestStore(store)
  const hostile = await phase(suite, engine, store, target, 'hostile', hostileCount, suite.options.seed)
  const after = await digestStore(store)
  log(
    `fuzz ${engine}: digest of ${Object.values(before.counts).reduce((a, b) => a + b, 0)} ` +
      `rows ${before.digest === after.digest ? 'unchanged' : 'CHANGED'} by the hostile phase`
  )
  const valid = await phase(
    suite,
    engine,
    store,
    target,
    'valid',
    suite.options.fuzzRequests - hostileCount,
    suite.options.seed + 1
  )
  return judge(
    engine,
    started,
    hostile,
    valid,
    before.digest === after.digest,
    changedTables(before.counts, after.counts)
  )
}

/** The five request families that took the most time in all: "aggregate 34% (avg 120 ms, max 2100 ms)". */
function slowestFamilies(phases: PhaseStats[]): string {
  const all = new Map<string, { n: number; totalMs: number; maxMs: number }>()
  for (const p of phases) {
    for (const [name, f] of Object.entries(p.families)) {
      const sum = all.get(name) ?? { n: 0, totalMs: 0, maxMs: 0 }
      all.set(name, { n: sum.n + f.n, totalMs: sum.totalMs + f.totalMs, maxMs: Math.max(sum.maxMs, f.maxMs) })
    }
  }
  const total = [...all.values()].reduce((t, f) => t + f.totalMs, 0) || 1
  return [...all]
    .sort((a, b) => b[1].totalMs - a[1].totalMs)
    .slice(0, 5)
    .map(
      ([name, f]) =>
        `${name} ${Math.round((f.totalMs * 100) / total)}% (avg ${Math.round(f.totalMs / f.n)} ms, ` +
        `max ${Math.round(f.maxMs)} ms)`
    )
    .join(', ')
}

function changedTables(before: Record<string, number>, after: Record<string, number>): string {
  return Object.keys({ ...before, ...after })
    .filter(t => before[t] !== after[t])
    .map(t => `${t}: ${before[t] ?? 0} -> ${after[t] ?? 0} rows`)
    .join(', ')
}

function judge(
  engine: EngineName,
  started: number,
  hostile: { stats: PhaseStats; probe: ProbeSummary },
  valid: { stats: PhaseStats; probe: ProbeSummary },
  digestSame: boolean,
  tableChanges: string
): ScenarioResult {
  const both = [hostile, valid]
  const sum = (f: (p: { stats: PhaseStats; probe: ProbeSummary }) => number): number =>
    both.reduce((n, p) => n + f(p), 0)
  const sent = sum(p => p.stats.sent)
  const serverErrors = sum(p => p.stats.counts.serverErrors)
  const shed = sum(p => p.stats.counts.shed)
  const noReply = sum(p => p.stats.counts.noReply)
  const crashes = both.filter(p => p.stats.crashed).length
  const misses = sum(p => p.probe.misses)
  const stopped = both.map(p => p.stats.stoppedEarly).filter(Boolean)
  const checks = [
    check('requests', stopped.length === 0, `${sent}${stopped.length ? ` (stopped: ${stopped.join('; ')})` : ''}`),
    check('5xx', serverErrors === 0, serverErrors),
    check(
      'shed with 503 + Retry-After',
      shed <= sent * MAX_SHED_SHARE,
      `${shed} (at most ${Math.floor(sent * MAX_SHED_SHARE)})`
    ),
    check('no reply', noReply === 0, noReply),
    check('crashes', crashes === 0, crashes),
    check('refused writes accepted', hostile.stats.counts.acceptedWrites === 0, hostile.stats.counts.acceptedWrites),
    check('data changed by refused requests', digestSame, digestSame ? 'no (digest equal)' : `YES ${tableChanges}`),
    check('health probes missed', misses === 0, `${misses}/${sum(p => p.probe.probes)}`)
  ]
  const statuses: Record<string, number> = {}
  for (const p of both) for (const [s, n] of Object.entries(p.stats.byStatus)) statuses[s] = (statuses[s] ?? 0) + n
  const figures = {
    requests: sent,
    hostile: hostile.stats.sent,
    valid: valid.stats.sent,
    requestsPerSecond: Math.round(sent / (hostile.stats.seconds + valid.stats.seconds)),
    shedWith503RetryAfter: shed,
    statuses: Object.entries(statuses)
      .sort()
      .map(([s, n]) => `${s}:${n}`)
      .join(' '),
    validWritesAccepted: valid.stats.counts.acceptedWrites,
    maxMs: Math.round(Math.max(hostile.stats.maxMs, valid.stats.maxMs)),
    healthMaxMs: Math.round(Math.max(hostile.probe.maxMs, valid.probe.maxMs)),
    slowest: slowestFamilies(both.map(p => p.stats))
  }
  const failures = [
    ...both
      .flatMap(p => p.stats.serverErrors)
      .slice(0, 15)
      .map(f => `5xx: ${f}`),
    ...both
      .flatMap(p => p.stats.noReply)
      .slice(0, 15)
      .map(f => `no reply: ${f}`),
    ...hostile.stats.acceptedWrites.slice(0, 15).map(f => `refused write accepted: ${f}`)
  ]
  return { ...resultOf('fuzz', engine, started, checks, figures), failures }
}
