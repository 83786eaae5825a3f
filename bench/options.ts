// The benchmark's knobs, read from the environment (documented in bench/README.md).
// Unknown engine or scenario names are an error rather than a silently empty run.
import { intFrom } from '../src/config.ts'

/**
 * `postgres`: a throwaway PostgreSQL cluster over TCP (an external server); `default`: the embedded
 * default (DATA_DIR, DATABASE_URL unset); `ferretdb`: the MongoDB engine on a FerretDB v1 server of
 * its own (test/helpers/ferretdb.ts; asked for by name, since it needs FerretDB built).
 */
export const ENGINE_NAMES = ['postgres', 'default', 'ferretdb'] as const
export type EngineName = (typeof ENGINE_NAMES)[number]
/** The engines of a run that names none. */
const DEFAULT_ENGINES: EngineName[] = ['postgres', 'default']

export interface BenchOptions {
  /** Seconds of load per scenario. */
  duration: number
  /** Concurrent connections autocannon keeps open. */
  connections: number
  /** Seconds of unmeasured warm-up load before each scenario. */
  warmup: number
  /** Only scenarios whose name is listed (all when undefined). */
  scenarios?: string[]
  engines: EngineName[]
  /** Documents in the `test` collection (about 1 KB each). */
  testDocs: number
  /** Documents in the `link` collection: above 100,000 lists take the count -1 path. */
  linkDocs: number
  /** Directory for the server children's V8 CPU profiles (node --cpu-prof), when set. */
  cpuProfDir?: string
  /** Measure start-up (`startup` among the scenarios, or all), with this many start and restart pairs. */
  startupRuns: number
}

function list(raw: string | undefined): string[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined
  return raw
    .split(',')
    .map(s => s.trim())
    .filter(Boolean)
}

function checkEngines(names: string[]): EngineName[] {
  const unknown = names.filter(n => !(ENGINE_NAMES as readonly string[]).includes(n))
  if (unknown.length)
    throw new Error(`BENCH_ENGINES: unknown engine(s) ${unknown.join(', ')}; known: ${ENGINE_NAMES.join(', ')}`)
  return names as EngineName[]
}

/** The name in BENCH_SCENARIOS that asks for the start-up measurement (bench/startup.ts). */
export const STARTUP = 'startup'

export function readBenchOptions(env: NodeJS.ProcessEnv = process.env): BenchOptions {
  const scenarios = list(env.BENCH_SCENARIOS)
  return {
    duration: Math.max(1, intFrom(env, 'BENCH_DURATION', 10)),
    connections: Math.max(1, intFrom(env, 'BENCH_CONNECTIONS', 50)),
    warmup: intFrom(env, 'BENCH_WARMUP', 1),
    scenarios: scenarios?.filter(name => name !== STARTUP),
    startupRuns: !scenarios || scenarios.includes(STARTUP) ? Math.max(1, intFrom(env, 'BENCH_STARTUP_RUNS', 3)) : 0,
    engines: checkEngines(list(env.BENCH_ENGINES) ?? DEFAULT_ENGINES),
    testDocs: Math.max(1, intFrom(env, 'BENCH_TEST_DOCS', 10_000)),
    linkDocs: Math.max(1, intFrom(env, 'BENCH_LINK_DOCS', 110_000)),
    cpuProfDir: env.BENCH_CPU_PROF || undefined
  }
}

/**
 * The results file of runs like this one: `latest.json` at the default size and connections,
 * else one named after them (`latest-1000000-docs-10-connections.json`), so that a run of
 * another size is compared with the last run of its own size, and does not replace the default
 * run's figures that the next default run prints as `previous`. A run with FerretDB among its
 * engines is named after them too (`latest-postgres-ferretdb.json`, `latest-...-connections-postgres-ferretdb.json`).
 */
export function resultsFileOf(
  options: Pick<BenchOptions, 'testDocs' | 'linkDocs' | 'connections' | 'engines'>
): string {
  const defaults = readBenchOptions({})
  const engines = options.engines.includes('ferretdb') ? `-${options.engines.join('-')}` : ''
  if (
    options.testDocs === defaults.testDocs &&
    options.linkDocs === defaults.linkDocs &&
    options.connections === defaults.connections
  )
    return `latest${engines}.json`
  return `latest-${options.testDocs}-docs-${options.linkDocs}-links-${options.connections}-connections${engines}.json`
}
