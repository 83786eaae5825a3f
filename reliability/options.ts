// The reliability suite's knobs, read from the environment (docs/reliability.md).
// RELIABILITY_QUICK=1 shortens every scenario for development; the defaults are
// the full run that the targets are judged on.
import { intFrom } from '../src/config.ts'

export const SCENARIO_NAMES = ['restart', 'kill', 'fuzz', 'expensive', 'soak', 'secrets'] as const
export type ScenarioName = (typeof SCENARIO_NAMES)[number]
/**
 * `postgres`: the throwaway cluster over TCP (an external server); `default`: the embedded default (DATA_DIR,
 * DATABASE_URL unset).
 */
export const ENGINE_NAMES = ['postgres', 'default'] as const
export type EngineName = (typeof ENGINE_NAMES)[number]

export interface ReliabilityOptions {
  quick: boolean
  scenarios: ScenarioName[]
  engines: EngineName[]
  /** Seeds the fuzz generator and the kill moments; printed, so that a run can be replayed. */
  seed: number
  /** Fuzz requests per engine. */
  fuzzRequests: number
  fuzzConnections: number
  /** Concurrent writers and rounds of the kill -9 scenario, per engine. */
  writers: number
  killRounds: number
  /** Seconds the database server stays down in the restart scenario. */
  downSeconds: number
  soakSeconds: number
  soakEngines: EngineName[]
  /** STATEMENT_TIMEOUT_MS of the servers under test. */
  statementTimeoutMs: number
  /** Seeded documents: `link` (the largest collection) and `test` (about 1 KB each). */
  linkDocs: number
  testDocs: number
  /** The whole run stops (cleaning up) after this many minutes. */
  maxMinutes: number
  /** A directory that receives every server's output (trace-level logs), one file per server. */
  serverLogDir?: string
}

function list<T extends string>(
  name: string,
  raw: string | undefined,
  known: readonly T[],
  fallback: readonly T[]
): T[] {
  if (raw === undefined || raw.trim() === '') return [...fallback]
  const names = raw
    .split(',')
    .map(s => s.trim())
    .filter(Boolean)
  const unknown = names.filter(n => !(known as readonly string[]).includes(n))
  if (unknown.length) throw new Error(`${name}: unknown ${unknown.join(', ')}; known: ${known.join(', ')}`)
  return names as T[]
}

export function readOptions(env: NodeJS.ProcessEnv = process.env): ReliabilityOptions {
  const quick = env.RELIABILITY_QUICK === '1'
  const pick = (full: number, short: number): number => (quick ? short : full)
  return {
    quick,
    scenarios: list('RELIABILITY_SCENARIOS', env.RELIABILITY_SCENARIOS, SCENARIO_NAMES, SCENARIO_NAMES),
    engines: list('RELIABILITY_ENGINES', env.RELIABILITY_ENGINES, ENGINE_NAMES, ENGINE_NAMES),
    seed: intFrom(env, 'RELIABILITY_SEED', Date.now() % 1_000_000),
    fuzzRequests: intFrom(env, 'RELIABILITY_FUZZ_REQUESTS', pick(100_000, 4_000)),
    fuzzConnections: Math.max(1, intFrom(env, 'RELIABILITY_FUZZ_CONNECTIONS', 16)),
    writers: Math.max(1, intFrom(env, 'RELIABILITY_WRITERS', pick(1000, 200))),
    killRounds: Math.max(1, intFrom(env, 'RELIABILITY_KILL_ROUNDS', pick(5, 2))),
    downSeconds: Math.max(1, intFrom(env, 'RELIABILITY_DOWN_SECONDS', 5)),
    soakSeconds: Math.max(30, intFrom(env, 'RELIABILITY_SOAK_SECONDS', pick(600, 60))),
    soakEngines: list('RELIABILITY_SOAK_ENGINES', env.RELIABILITY_SOAK_ENGINES, ENGINE_NAMES, ENGINE_NAMES),
    statementTimeoutMs: Math.max(100, intFrom(env, 'RELIABILITY_STATEMENT_TIMEOUT_MS', 2000)),
    linkDocs: Math.max(100, intFrom(env, 'RELIABILITY_LINK_DOCS', pick(20_000, 3_000))),
    testDocs: Math.max(100, intFrom(env, 'RELIABILITY_TEST_DOCS', pick(2_000, 500))),
    maxMinutes: Math.max(1, intFrom(env, 'RELIABILITY_MAX_MINUTES', 60)),
    serverLogDir: env.RELIABILITY_SERVER_LOGS || undefined
  }
}
