// The benchmark's scenarios: each builds the requests it sends from the seeded
// data. Add one by appending to SCENARIOS; a scenario whose feature is missing
// throws SkipScenario and shows as skipped instead of failing the run.
import type { LoadSpec } from './load.ts'
import { FOO_VALUES, TOPICS } from './seed-data.ts'

export interface ScenarioContext {
  baseUrl: string
  /** Ids of the seeded `test` and `link` documents. */
  testIds: string[]
  /** Authorization header (Basic) of the bench user, a plain user. */
  basicAuth: string
  /** The bench user's API key and bearer token, from POST /login. */
  apiKey: () => Promise<string>
  token: () => Promise<string>
}

/** What a scenario needs that not every engine has: full-text search, the change feed. */
export type Lack = 'search' | 'changes'

export interface Scenario {
  name: string
  /** `baseline` runs on the bare Fastify + postgres.js server only; `quire` on every engine. */
  target: 'baseline' | 'quire'
  /** Change-feed subscribers (SSE on /changes/test) held open while the load runs. */
  subscribers?: number
  /** Quire server processes (WORKERS, on every engine): 1 unless said. */
  workers?: number
  /** The baseline scenario its ratio is taken against (`baseline`, a read, unless said). */
  yardstick?: string
  /** Settings its server runs with (the server's environment), beside the bench's own. */
  settings?: Record<string, string>
  /** What it needs that an engine may lack: skipped there, with the reason (BenchTarget.lacks). */
  needs?: Lack
  /** Seconds of unmeasured load at least, whatever BENCH_WARMUP says. */
  minWarmup?: number
  build: (ctx: ScenarioContext) => LoadSpec | Promise<LoadSpec>
}

/** Thrown by a scenario whose feature the server does not have yet. */
export class SkipScenario extends Error {}

/**
 * Unmeasured writes before each write scenario: they are compared with each other (create with its baseline and with
 * create-watched).
 */
const WRITE_WARMUP_SECONDS = 8

/** The baseline scenario that inserts (into a copy of q_test made while seeding: bench/baseline-table.ts). */
export const BASELINE_INSERTS = 'baseline-create'
/** The anonymous reads the authenticated ones are compared with (bench/report.ts). */
export const ANONYMOUS_READS = 'get-anonymous'

/**
 * Groups of scenarios compared with each other by a ratio, each run in turns (bench/run-scenarios.ts):
 * one window each would charge whatever else happened on the machine during one of them to it.
 * The bare insert takes its turns on the baseline server, kept running beside PostgreSQL's Quire.
 */
export const INTERLEAVED = [
  [ANONYMOUS_READS, 'get-basic-auth', 'get-api-key', 'get-bearer'],
  [BASELINE_INSERTS, 'create']
]

/** Subscribers of the change-feed scenario (the figure). */
export const FEED_SUBSCRIBERS = 100

const range = (n: number, item: (i: number) => string): string[] => Array.from({ length: n }, (_, i) => item(i))
const getEach = (paths: string[], headers?: Record<string, string>): LoadSpec => ({ method: 'GET', paths, headers })

const AGGREGATE_PIPELINE = [
  { $match: { foo: 'foo-7' } },
  { $group: { _id: '$yack.s', total: { $sum: '$yack.n' }, n: { $sum: 1 } } }
]

const NEW_DOCUMENT = {
  foo: 'created',
  bar: 'by the benchmark',
  shmack: ['a', 'b'],
  yack: { s: 'group-1', n: 1 },
  fulltext: 'A document created by the benchmark, with some text for the full-text index.'
}

/** POST /api/test as the bench user: the write scenarios' request. */
const createSpec = (ctx: ScenarioContext): LoadSpec => ({
  method: 'POST',
  paths: ['/api/test'],
  headers: { authorization: ctx.basicAuth },
  body: JSON.stringify(NEW_DOCUMENT)
})

function expectBigCount(body: string): string | undefined {
  return (JSON.parse(body) as { count?: number }).count === -1
    ? undefined
    : 'expected count -1 (collection above the exact-count limit)'
}

export const SCENARIOS: Scenario[] = [
  { name: 'baseline', target: 'baseline', build: ctx => getEach(ctx.testIds.map(id => `/baseline/${id}`)) },
  { name: 'get-by-id', target: 'quire', build: ctx => getEach(ctx.testIds.map(id => `/api/test/${id}`)) },
  // The same reads as get-by-id, served by two worker processes: the scaling over one.
  {
    name: 'get-by-id-2-workers',
    target: 'quire',
    workers: 2,
    build: ctx => getEach(ctx.testIds.map(id => `/api/test/${id}`))
  },
  { name: 'list', target: 'quire', build: () => getEach(['/api/test?limit=10']) },
  // The same list from the response cache (CACHE_ENABLED): every answer after the first is a hit.
  {
    name: 'list-cached',
    target: 'quire',
    settings: { CACHE_ENABLED: 'true' },
    build: () => getEach(['/api/test?limit=10'])
  },
  // An array field without an index of its own; 1 in SHMACK_NUMBERS documents holds "3".
  { name: 'list-shmack', target: 'quire', build: () => getEach(['/api/test?filter[shmack]=3&limit=10']) },
  {
    name: 'list-filtered',
    target: 'quire',
    build: () => getEach(range(FOO_VALUES, i => `/api/test?filter[foo]=foo-${i}&limit=10`))
  },
  {
    name: 'search',
    target: 'quire',
    needs: 'search',
    build: () => getEach(range(TOPICS, i => `/api/test?search=topic${i}&limit=10`))
  },
  { name: 'populate', target: 'quire', build: ctx => getEach(ctx.testIds.map(id => `/api/test/${id}?populate=link`)) },
  { name: 'list-big', target: 'quire', build: () => ({ ...getEach(['/api/link?limit=10']), expect: expectBigCount }) },
  // get-by-id again, in turns with the authenticated reads (INTERLEAVED), which are compared with
  // it: reads measured later in a run are slower whatever they carry (the server has served the
  // lists and searches above since), so an anonymous read measured at the start would charge that to credentials.
  { name: ANONYMOUS_READS, target: 'quire', build: ctx => getEach(ctx.testIds.map(id => `/api/test/${id}`)) },
  {
    name: 'get-basic-auth',
    target: 'quire',
    build: ctx =>
      getEach(
        ctx.testIds.map(id => `/api/test/${id}`),
        { authorization: ctx.basicAuth }
      )
  },
  {
    name: 'get-api-key',
    target: 'quire',
    build: async ctx =>
      getEach(
        ctx.testIds.map(id => `/api/test/${id}`),
        { apikey: await ctx.apiKey() }
      )
  },
  {
    name: 'get-bearer',
    target: 'quire',
    build: async ctx =>
      getEach(
        ctx.testIds.map(id => `/api/test/${id}`),
        { authorization: `Bearer ${await ctx.token()}` }
      )
  },
  {
    name: 'aggregate',
    target: 'quire',
    build: ctx => ({
      method: 'POST',
      paths: ['/aggregate/test'],
      headers: { authorization: ctx.basicAuth },
      body: JSON.stringify(AGGREGATE_PIPELINE)
    })
  },
  // Last: `create` grows the test collection that the scenarios above read (`baseline-create` writes a table of its
  // own).
  {
    name: BASELINE_INSERTS,
    target: 'baseline',
    minWarmup: WRITE_WARMUP_SECONDS,
    build: () => ({ method: 'POST', paths: ['/baseline'], body: JSON.stringify(NEW_DOCUMENT) })
  },
  {
    name: 'create',
    target: 'quire',
    yardstick: BASELINE_INSERTS,
    // The first writes after the seeding cost more (once 668 req/s with 1 s of warm-up, 1,003 with
    // 8 s): `create` would be measured in that transient and `create-watched` after it.
    minWarmup: WRITE_WARMUP_SECONDS,
    build: createSpec
  },
  // The same writes with FEED_SUBSCRIBERS change-feed subscribers: events delivered per second,
  // and what the feed costs writes (compared with `create`; the goal is at most FEED_COST_GOAL).
  {
    name: 'create-watched',
    target: 'quire',
    yardstick: BASELINE_INSERTS,
    subscribers: FEED_SUBSCRIBERS,
    needs: 'changes',
    minWarmup: WRITE_WARMUP_SECONDS,
    build: createSpec
  }
]

/** The baseline scenario a scenario's ratio is taken against. */
export function yardstickOf(scenario: string): string {
  return SCENARIOS.find(s => s.name === scenario)?.yardstick ?? 'baseline'
}

/** The scenarios named in `names` (all when undefined); an unknown name is an error. */
export function selectScenarios(names: string[] | undefined): Scenario[] {
  if (!names) return SCENARIOS
  const unknown = names.filter(n => !SCENARIOS.some(s => s.name === n))
  if (unknown.length)
    throw new Error(
      `BENCH_SCENARIOS: unknown scenario(s) ${unknown.join(', ')}; known: ${SCENARIOS.map(s => s.name).join(', ')}`
    )
  return SCENARIOS.filter(s => names.includes(s.name))
}
