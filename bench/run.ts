// `npm run bench`: seeds PostgreSQL and PGlite, starts the real Quire server on
// each (plus a bare Fastify + postgres.js baseline) in child processes, runs the
// scenarios with autocannon, prints the table and writes bench/results/latest.json (resultsFileOf).
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { startPgCluster } from '../src/embedded/throwaway-cluster.ts'
import { quoteIdent } from '../src/sql/quote.ts'
import { loadModels } from '../src/models/load-models.ts'
import { readBenchOptions, resultsFileOf, type BenchOptions } from './options.ts'
import { onCleanup, runCleanup, cleanupOnSignals } from './cleanup.ts'
import { startChildServer, type ChildServer } from './child-server.ts'
import { createDatabaseCpuMeter } from './database-cpu.ts'
import type { CpuMeter } from './load.ts'
import { generateSeedData, type SeedData } from './seed-data.ts'
import { seedDatabase, MODELS_DIR } from './seed-database.ts'
import { copyTestTable } from './baseline-table.ts'
import { BASELINE_INSERTS, selectScenarios, yardstickOf, type Scenario } from './scenarios.ts'
import { runScenarios, type BenchTarget } from './run-scenarios.ts'
import { addPrevious, addRatios, describeAuthCost, describeFeedCost, describeGoal, describeScaling, formatTable, log, writeResults, type ResultRow } from './report.ts'
import { measureStartup, type StartupResult } from './startup.ts'
import { settleSeededPglite, waitForChangeLog } from './change-log-settled.ts'

interface Database {
  url: string
  /** CPU of the PostgreSQL backends (undefined for PGlite, whose work is in the server process). */
  cpuMeter?: CpuMeter
}

/**
 * VACUUMs (and ANALYZEs) the freshly seeded database, as autovacuum does within minutes of a bulk
 * load: the scenarios measure that steady state, not autovacuum's first pass over a large load
 * competing with them for the CPU, nor index-only scans (the aggregation's covering index) that
 * visit the table for every row until the visibility map is set.
 */
async function vacuumSeeded (url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  try {
    const tables = await sql.unsafe("SELECT relname AS name FROM pg_stat_user_tables WHERE schemaname = 'public' ORDER BY pg_total_relation_size(relid) DESC")
    log(`vacuuming the ${tables.length} seeded tables, largest first (what autovacuum does within minutes of a load)`)
    for (const [i, { name }] of tables.entries()) {
      const started = Date.now()
      await sql.unsafe(`VACUUM (ANALYZE) ${quoteIdent(String(name))}`)
      const seconds = (Date.now() - started) / 1000
      if (seconds >= 1 || i === tables.length - 1) log(`  vacuumed ${String(name)} in ${seconds.toFixed(1)} s (${i + 1}/${tables.length})`)
    }
  } finally {
    await sql.end()
  }
}

/** Starts the throwaway cluster, creates the bench database and seeds it. */
async function preparePostgres (data: SeedData): Promise<Database> {
  log('starting a throwaway PostgreSQL cluster')
  const cluster = await startPgCluster()
  onCleanup(() => cluster.stop())
  const admin = postgres(cluster.url, { max: 1, onnotice: () => {} })
  await admin.unsafe('CREATE DATABASE quire_bench')
  await admin.end()
  const url = cluster.url.replace(/\/postgres$/, '/quire_bench')
  await seedDatabase(url, data, 'postgres')
  await vacuumSeeded(url)
  const meter = createDatabaseCpuMeter(url)
  if (meter) onCleanup(() => meter.close())
  return { url, cpuMeter: meter?.meter }
}

/** Seeds a PGlite data directory (deleted at the end) that the server then opens. */
async function preparePglite (data: SeedData): Promise<Database> {
  const dir = mkdtempSync(join(tmpdir(), 'quire-bench-pglite-'))
  onCleanup(() => rmSync(dir, { recursive: true, force: true }))
  const url = `pglite://${dir}`
  await seedDatabase(url, data, 'pglite')
  await settleSeededPglite(dir)
  return { url }
}

interface ServerPlan { name: string, script: string, database: Database, scenarios: Scenario[], env?: Record<string, string>, settle?: () => Promise<void> }

/** How to start a plan's server (and start it again) in a child process. */
function targetOf (plan: ServerPlan, options: BenchOptions): BenchTarget {
  // One profile per thread (the main thread is the one with the most samples), in a directory per server.
  const nodeArgs = options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${join(options.cpuProfDir, plan.name)}`] : []
  const start = async (): Promise<ChildServer> => {
    log(`starting the ${plan.name} server`)
    const server = await startChildServer(plan.name, plan.script, { DATABASE_URL: plan.database.url, ...plan.env }, nodeArgs)
    onCleanup(() => server.stop())
    await plan.settle?.()
    return server
  }
  return { name: plan.name, start, databaseCpu: plan.database.cpuMeter }
}

/** Runs a plan's scenarios against its server; those of the baseline's among them on a `baseline` server beside it. */
async function benchServer (plan: ServerPlan, testIds: string[], options: BenchOptions, baseline?: BenchTarget): Promise<ResultRow[]> {
  return await runScenarios(plan.scenarios, targetOf(plan, options), testIds, options, baseline)
}

async function benchAll (options: BenchOptions): Promise<ResultRow[]> {
  const scenarios = options.scenarios?.length === 0 ? [] : selectScenarios(options.scenarios)
  if (scenarios.length === 0) return []
  const baseline = scenarios.filter(s => s.target === 'baseline')
  const quire = scenarios.filter(s => s.target === 'quire')
  const models = loadModels(MODELS_DIR)
  log(`generating ${options.linkDocs} link and ${options.testDocs} test documents`)
  const data = await generateSeedData({ test: models.get('test')!, link: models.get('link')! }, options)
  const testIds = data.test.map(d => d._id as string)
  const rows: ResultRow[] = []
  const pg = baseline.length || options.engines.includes('postgres') ? await preparePostgres(data) : undefined
  if (pg && baseline.some(s => s.name === BASELINE_INSERTS)) await copyTestTable(pg.url, data.test.length)
  // The bare insert takes turns with PostgreSQL's creates (INTERLEAVED) when both run.
  const pairedInserts = baseline.find(s => s.name === BASELINE_INSERTS && options.engines.includes('postgres') && quire.some(q => q.name === 'create'))
  const baselinePlan: ServerPlan | undefined = pg && { name: 'baseline', script: './baseline-server.ts', database: pg, scenarios: baseline.filter(s => s !== pairedInserts) }
  if (baselinePlan?.scenarios.length) rows.push(...await benchServer(baselinePlan, testIds, options))
  if (!quire.length) return rows
  for (const engine of options.engines) {
    const database = engine === 'postgres' ? pg! : await preparePglite(data)
    const own = engine === 'postgres' && pairedInserts ? scenarios.filter(s => s.target === 'quire' || s === pairedInserts) : quire
    const aside = baselinePlan && targetOf(baselinePlan, options)
    for (const group of groupByWorkers(own)) rows.push(...await benchGroup(engine, database, group, testIds, options, aside))
  }
  return rows
}

/**
 * Runs of consecutive scenarios with the same worker count, in the scenarios' order: those with
 * several workers run where they are listed, before the writes grow the collection and the
 * change log that a newly started server would first catch up with.
 */
function groupByWorkers (scenarios: Scenario[]): Scenario[][] {
  const groups: Scenario[][] = []
  for (const scenario of scenarios) {
    const last = groups.at(-1)
    if (last && (last[0].workers ?? 1) === (scenario.workers ?? 1)) last.push(scenario)
    else groups.push([scenario])
  }
  return groups
}

/** One server (WORKERS as the group says) for a group of scenarios; PGlite refuses several workers. */
async function benchGroup (engine: string, database: Database, scenarios: Scenario[], testIds: string[], options: BenchOptions, baseline?: BenchTarget): Promise<ResultRow[]> {
  const workers = scenarios[0].workers ?? 1
  if (workers > 1 && engine === 'pglite') return scenarios.map(s => ({ scenario: s.name, engine, status: 'skipped', note: 'PGlite is one process\'s database (WORKERS=1)' }))
  const settle = engine === 'postgres' ? () => waitForChangeLog(database.url) : undefined
  return await benchServer({ name: engine, script: './serve.ts', database, scenarios, env: workers > 1 ? { WORKERS: String(workers) } : {}, settle }, testIds, options, baseline)
}

async function main (): Promise<void> {
  const started = Date.now()
  const options = readBenchOptions()
  cleanupOnSignals()
  const loadAtStart = loadavg()[0]
  log(`load average at start: ${loadAtStart.toFixed(2)} on ${cpus().length} cores${loadAtStart > 0.5 ? ' (other work is running: numbers will be noisy)' : ''}`)
  let startup: StartupResult | undefined
  if (options.startupRuns) {
    log(`measuring start-up: ${options.startupRuns} x (npm start on a new PGlite data directory, then a restart on it)`)
    startup = await measureStartup(options.startupRuns)
  }
  const rows = await benchAll(options)
  addRatios(rows, yardstickOf)
  const resultsFile = resultsFileOf(options)
  addPrevious(rows, resultsFile)
  const seconds = (Date.now() - started) / 1000
  if (rows.length) log(`results:\n${formatTable(rows)}\n`)
  const goal = describeGoal(rows)
  if (goal) log(goal)
  for (const line of [...describeAuthCost(rows), ...describeFeedCost(rows), ...describeScaling(rows)]) log(line)
  const path = writeResults({
    finishedAt: new Date().toISOString(),
    runtimeSeconds: Math.round(seconds),
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model, node: process.version, loadAverageAtStart: loadAtStart },
    options,
    startup,
    rows
  }, resultsFile)
  log(`total ${seconds.toFixed(0)} s; results in ${path}`)
  if (rows.some(r => r.status === 'errors' || r.status === 'failed')) log('some scenarios had errors: see the status column')
}

let exitCode = 0
try {
  await main()
} catch (err) {
  process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`)
  exitCode = 1
} finally {
  await runCleanup()
}
process.exit(exitCode)
