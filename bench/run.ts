// `npm run bench`: seeds an external PostgreSQL (a throwaway cluster over TCP) and the embedded
// default (a DATA_DIR with DATABASE_URL unset, as `npm start` runs), and FerretDB when asked for,
// starts the real Quire server
// on each (plus a bare Fastify + postgres.js baseline) in child processes, runs the scenarios with
// autocannon, prints the table and writes bench/results/latest.json (resultsFileOf).
import { cpus, loadavg } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { startPgCluster } from '../test/helpers/throwaway-cluster.ts'
import { loadConfig } from '../src/config.ts'
import { attachDatabase } from '../src/embedded/attach-database.ts'
import { loadModels } from '../src/models/load-models.ts'
import { readBenchOptions, resultsFileOf, type BenchOptions } from './options.ts'
import { onCleanup, runCleanup, cleanupOnSignals } from './cleanup.ts'
import { startChildServer, type ChildServer } from './child-server.ts'
import { createDatabaseCpuMeter, createProcessCpuMeter, sumOf } from './database-cpu.ts'
import { ferretdbBinary, startFerretDB, FERRETDB_VERSION } from '../test/helpers/ferretdb.ts'
import type { CpuMeter } from './load.ts'
import { generateSeedData, type SeedData } from './seed-data.ts'
import { seedDatabase, MODELS_DIR } from './seed-database.ts'
import { copyTestTable } from './baseline-table.ts'
import { BASELINE_INSERTS, selectScenarios, yardstickOf, type Scenario } from './scenarios.ts'
import { runScenarios, type BenchTarget } from './run-scenarios.ts'
import {
  addPrevious,
  addRatios,
  describeAuthCost,
  describeDefaultAgainstPostgres,
  describeCachedList,
  describeFeedCost,
  describeGoal,
  describeScaling,
  formatTable,
  log,
  writeResults,
  type ResultRow
} from './report.ts'
import { measureStartup, type StartupResult } from './startup.ts'
import { waitForChangeLog } from './change-log-settled.ts'
import { newDataDir } from './embedded-store.ts'
import { connectSql } from './sql-connection.ts'
import { embeddedStore, envOf, externalStore, ferretStore, type Store } from './store.ts'
import type { Lack } from './scenarios.ts'

interface Database {
  store: Store
  /** CPU of the PostgreSQL backends (or the FerretDB process) serving it. */
  cpuMeter?: CpuMeter
  /** What its engine cannot serve, with the reason its scenarios are skipped. */
  lacks?: Partial<Record<Lack, string>>
}

/** A CPU meter of the store's backends, closed at the end. */
function meterOf(store: Store): CpuMeter | undefined {
  const meter = createDatabaseCpuMeter(store.url)
  if (meter) onCleanup(() => meter.close())
  return meter?.meter
}

/** Starts the throwaway cluster (the external PostgreSQL, over TCP), creates the bench database and seeds it. */
async function preparePostgres(data: SeedData): Promise<Database> {
  log('starting a throwaway PostgreSQL cluster (the external PostgreSQL, over TCP)')
  const cluster = await startPgCluster()
  onCleanup(() => cluster.stop())
  const admin = postgres(cluster.url, { max: 1, onnotice: () => {} })
  await admin.unsafe('CREATE DATABASE quire_bench')
  await admin.end()
  const store = externalStore(cluster.url.replace(/\/postgres$/, '/quire_bench'))
  await seedDatabase(store, data, { vacuum: true })
  return { store, cpuMeter: meterOf(store) }
}

/**
 * A new DATA_DIR for the embedded default, its server started as every `quire` command starts it
 * (attachDatabase), then seeded through the storage engine and VACUUMed like PostgreSQL's. The
 * bench keeps one connection of its own to that server for the whole run (the CPU meter's, and a
 * holder): the last process out stops the embedded server, so without it each Quire server the
 * bench stops would stop PostgreSQL too, and the next would start on a cold cache (the external
 * cluster stays up throughout). At the end the bench closes them and lets go, which stops the
 * server; embedded-store.ts checks that none is left running.
 */
async function prepareDefault(data: SeedData): Promise<Database> {
  const dir = newDataDir('quire-bench-default-')
  onCleanup(() => dir.remove(log))
  const store = embeddedStore(dir.dataDir)
  log(`starting the embedded default's PostgreSQL server in ${dir.dataDir} (DATABASE_URL unset)`)
  const attached = await attachDatabase(loadConfig(envOf(store)), msg => log(`  ${msg}`))
  onCleanup(() => attached.release())
  const holder = connectSql(store.url, { max: 1 })
  onCleanup(() => holder.end({ timeout: 5 }))
  await holder`SELECT 1`
  const cpuMeter = meterOf(store)
  await seedDatabase(store, data, { vacuum: true })
  return { store, cpuMeter }
}

/**
 * Starts FerretDB (the MongoDB engine's server here) over a throwaway PostgreSQL cluster of its
 * own, FerretDB's backend for production (the tests run it over SQLite, which checks every filter
 * but a bare `_id` itself), and seeds a database on it through the MongoDB engine. Its database CPU
 * is FerretDB's process and its PostgreSQL backends. Scenarios that need full-text search or change
 * streams (FerretDB v1 has neither) are skipped, saying so.
 */
async function prepareFerret(data: SeedData): Promise<Database> {
  const found = ferretdbBinary()
  if ('missing' in found) throw new Error(`BENCH_ENGINES names ferretdb, but ${found.missing}`)
  log(`starting FerretDB ${FERRETDB_VERSION} over a throwaway PostgreSQL cluster of its own (the MongoDB engine)`)
  const cluster = await startPgCluster()
  onCleanup(() => cluster.stop())
  const admin = postgres(cluster.url, { max: 1, onnotice: () => {} })
  await admin.unsafe('CREATE DATABASE ferretdb')
  await admin.end()
  const backendUrl = cluster.url.replace(/\/postgres$/, '/ferretdb')
  const server = await startFerretDB(found.bin, { postgresUrl: backendUrl })
  onCleanup(() => server.stop())
  const store = ferretStore(`${server.url}quire_bench`)
  await seedDatabase(store, data)
  return {
    store,
    cpuMeter: sumOf([createProcessCpuMeter(server.pid), meterOf(externalStore(backendUrl))]),
    lacks: { search: 'FerretDB v1 has no text indexes (501)', changes: 'FerretDB v1 has no change streams (503)' }
  }
}

/** The seeded database of one engine. */
async function prepareEngine(engine: string, data: SeedData, pg: Database | undefined): Promise<Database> {
  if (engine === 'postgres') return pg!
  return engine === 'ferretdb' ? await prepareFerret(data) : await prepareDefault(data)
}

interface ServerPlan {
  name: string
  script: string
  database: Database
  scenarios: Scenario[]
  env?: Record<string, string>
  settle?: () => Promise<void>
}

/** How to start a plan's server (and start it again) in a child process; its rows are named after the plan. */
function targetOf(plan: ServerPlan, options: BenchOptions): BenchTarget {
  // One profile per thread (the main thread is the one with the most samples), in a directory per server.
  const nodeArgs = options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${join(options.cpuProfDir, plan.name)}`] : []
  const start = async (): Promise<ChildServer> => {
    log(`starting the ${plan.name} server`)
    const server = await startChildServer(
      plan.name,
      plan.script,
      { ...envOf(plan.database.store), ...plan.env },
      nodeArgs
    )
    onCleanup(() => server.stop())
    await plan.settle?.()
    return server
  }
  return { name: plan.name, start, databaseCpu: plan.database.cpuMeter, lacks: plan.database.lacks }
}

async function benchAll(options: BenchOptions): Promise<ResultRow[]> {
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
  if (pg && baseline.some(s => s.name === BASELINE_INSERTS)) await copyTestTable(pg.store.url, data.test.length)
  const databases = new Map<string, Database>()
  for (const engine of quire.length ? options.engines : []) databases.set(engine, await prepareEngine(engine, data, pg))
  // The bare insert takes turns with the engines' creates (INTERLEAVED) when they run.
  const pairedInserts = baseline.find(s => s.name === BASELINE_INSERTS && quire.some(q => q.name === 'create'))
  const baselinePlan: ServerPlan | undefined = pg && {
    name: 'baseline',
    script: './baseline-server.ts',
    database: pg,
    scenarios: baseline.filter(s => s !== pairedInserts)
  }
  if (baselinePlan?.scenarios.length)
    rows.push(...(await runScenarios(baselinePlan.scenarios, [targetOf(baselinePlan, options)], testIds, options)))
  if (!quire.length) return rows
  const own = scenarios.filter(s => s.target === 'quire' || s === pairedInserts)
  const aside = baselinePlan && targetOf(baselinePlan, options)
  for (const group of groupByServer(own)) rows.push(...(await benchGroup(databases, group, testIds, options, aside)))
  return rows
}

/** The environment a scenario's server runs with: WORKERS when it has several, and its own settings. */
function serverEnvOf(scenario: Scenario): Record<string, string> {
  const workers = scenario.workers ?? 1
  return { ...(workers > 1 && { WORKERS: String(workers) }), ...scenario.settings }
}

/**
 * Runs of consecutive scenarios whose servers run alike (worker count and settings), in the
 * scenarios' order: those with several workers or other settings run where they are listed,
 * before the writes grow the collection and the change log that a newly started server would
 * first catch up with.
 */
function groupByServer(scenarios: Scenario[]): Scenario[][] {
  const groups: Scenario[][] = []
  const key = (s: Scenario): string => JSON.stringify(serverEnvOf(s))
  for (const scenario of scenarios) {
    const last = groups.at(-1)
    if (last && key(last[0]) === key(scenario)) last.push(scenario)
    else groups.push([scenario])
  }
  return groups
}

/**
 * One server per engine (WORKERS and settings as the group says), side by side, for a group of scenarios, each run on
 * every engine in turns.
 */
async function benchGroup(
  databases: Map<string, Database>,
  scenarios: Scenario[],
  testIds: string[],
  options: BenchOptions,
  baseline?: BenchTarget
): Promise<ResultRow[]> {
  const targets = [...databases].map(([engine, database]) =>
    targetOf(
      {
        name: engine,
        script: './serve.ts',
        database,
        scenarios,
        env: serverEnvOf(scenarios[0]),
        settle: database.store.url.startsWith('mongodb:') ? undefined : () => waitForChangeLog(database.store.url)
      },
      options
    )
  )
  return await runScenarios(scenarios, targets, testIds, options, baseline)
}

async function main(): Promise<void> {
  const started = Date.now()
  const options = readBenchOptions()
  cleanupOnSignals()
  const loadAtStart = loadavg()[0]
  log(
    `load average at start: ${loadAtStart.toFixed(2)} on ${cpus().length} ` +
      `cores${loadAtStart > 0.5 ? ' (other work is running: numbers will be noisy)' : ''}`
  )
  let startup: StartupResult | undefined
  if (options.startupRuns) {
    log(
      `measuring start-up on the embedded default: ${options.startupRuns} x (a start on a new data ` +
        `directory, then a restart on it), with npm start and with quire serve`
    )
    startup = await measureStartup(options.startupRuns)
  }
  const rows = await benchAll(options)
  addRatios(rows, yardstickOf)
  const resultsFile = resultsFileOf(options)
  addPrevious(rows, resultsFile)
  const seconds = (Date.now() - started) / 1000
  if (rows.length && startup) for (const line of startup.lines) log(line) // again beside the table
  if (rows.length) log(`results:\n${formatTable(rows)}\n`)
  const goal = describeGoal(rows)
  if (goal) log(goal)
  for (const line of [
    ...describeDefaultAgainstPostgres(rows),
    ...describeCachedList(rows),
    ...describeAuthCost(rows),
    ...describeFeedCost(rows),
    ...describeScaling(rows)
  ])
    log(line)
  const path = writeResults(
    {
      finishedAt: new Date().toISOString(),
      runtimeSeconds: Math.round(seconds),
      machine: { cpus: cpus().length, cpu: cpus()[0]?.model, node: process.version, loadAverageAtStart: loadAtStart },
      options,
      startup,
      rows
    },
    resultsFile
  )
  log(`total ${seconds.toFixed(0)} s; results in ${path}`)
  if (rows.some(r => r.status === 'errors' || r.status === 'failed'))
    log('some scenarios had errors: see the status column')
  if (startup?.problems.length) log(`start-up problems: ${startup.problems.join('; ')}`)
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
