// `npm run reliability`: runs the reliability scenarios (docs/reliability.md)
// against real Quire servers on an external PostgreSQL and on the embedded default
// (exactly the same scenarios and pass criteria), on loopback only, prints
// one line per scenario and engine with PASS or FAIL, writes
// bench/results/reliability.json, and stops everything it started.
import { cpus, loadavg, totalmem } from 'node:os'
import { cleanupOnSignals, runCleanup } from '../bench/cleanup.ts'
import { log, writeResults } from '../bench/report.ts'
import { readOptions, type EngineName, type ReliabilityOptions, type ScenarioName } from './options.ts'
import { brokenResult, formatResult, type ScenarioResult } from './report.ts'
import { createSuite, type Suite } from './stack.ts'
import { runRestart } from './scenarios/restart.ts'
import { runKill } from './scenarios/kill.ts'
import { runFuzz } from './scenarios/fuzz.ts'
import { runExpensive } from './scenarios/expensive.ts'
import { runSoak } from './scenarios/soak.ts'
import { judgeSecrets } from './scenarios/secrets.ts'

type Runner = (suite: Suite, engine: EngineName) => Promise<ScenarioResult>

/**
 * Each scenario and the engines it runs on (every engine; soak: RELIABILITY_SOAK_ENGINES, both by default); secrets
 * judges the whole run, so it comes last.
 */
const PLAN: Array<{ name: ScenarioName; engines: (o: ReliabilityOptions) => EngineName[]; run: Runner }> = [
  { name: 'restart', engines: o => o.engines, run: runRestart },
  { name: 'kill', engines: o => o.engines, run: runKill },
  { name: 'fuzz', engines: o => o.engines, run: runFuzz },
  { name: 'expensive', engines: o => o.engines, run: runExpensive },
  { name: 'soak', engines: o => o.soakEngines.filter(e => o.engines.includes(e)), run: runSoak }
]

async function runPlan(suite: Suite): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = []
  for (const step of PLAN) {
    if (!suite.options.scenarios.includes(step.name)) continue
    for (const engine of step.engines(suite.options)) {
      log(`${step.name} on ${engine}: starting`)
      const started = Date.now()
      let result: ScenarioResult
      try {
        result = await step.run(suite, engine)
      } catch (err) {
        result = brokenResult(step.name, engine, started, err)
      }
      results.push(result)
      log(formatResult(result))
    }
  }
  if (suite.options.scenarios.includes('secrets')) results.push(judgeSecrets(suite))
  return results
}

/** Ends the run, cleaning up, if it is still going after `minutes` (a stuck scenario must not keep it alive). */
function stopAfter(minutes: number): void {
  setTimeout(() => {
    process.stderr.write(
      `reliability suite: still running after ${minutes} minutes (RELIABILITY_MAX_MINUTES): stopping\n`
    )
    runCleanup().finally(() => process.exit(2))
  }, minutes * 60_000).unref()
}

async function main(): Promise<boolean> {
  const started = Date.now()
  const options = readOptions()
  cleanupOnSignals()
  stopAfter(options.maxMinutes)
  const load = loadavg()[0]
  log(
    `reliability suite${options.quick ? ' (RELIABILITY_QUICK: shortened)' : ''}: seed ${options.seed}, ` +
      `engines ${options.engines.join(', ')}, ` +
      `load average ${load.toFixed(2)} on ${cpus().length} cores`
  )
  const suite = await createSuite(options)
  const results = await runPlan(suite)
  const seconds = Math.round((Date.now() - started) / 1000)
  log(`summary (${seconds} s):\n${results.map(formatResult).join('\n')}`)
  const serverErrors = [...suite.serverErrorExamples.entries()].map(
    ([key, example]) => `${suite.serverErrors.get(key)}x ${example}`
  )
  if (serverErrors.length) log(`errors the servers logged:\n${serverErrors.map(e => `  ${e}`).join('\n')}`)
  const path = writeResults(
    {
      finishedAt: new Date().toISOString(),
      runtimeSeconds: seconds,
      machine: {
        cpus: cpus().length,
        cpu: cpus()[0]?.model,
        memoryGb: Math.round(totalmem() / 2 ** 30),
        node: process.version,
        loadAverageAtStart: load
      },
      command: 'npm run reliability',
      options,
      pass: results.every(r => r.pass),
      results,
      serverErrors
    },
    'reliability.json'
  )
  const failed = results.filter(r => !r.pass)
  log(
    failed.length
      ? `FAIL: ${failed.length} of ${results.length} results failed; details in ${path}`
      : `PASS: all ${results.length} results passed; details in ${path}`
  )
  for (const r of failed) for (const f of r.failures) log(`  ${r.scenario}/${r.engine}: ${f}`)
  return failed.length === 0
}

let exitCode = 1
try {
  exitCode = (await main()) ? 0 : 1
} catch (err) {
  process.stderr.write(`reliability suite failed: ${(err as Error).stack ?? String(err)}\n`)
} finally {
  await runCleanup()
}
process.exit(exitCode)
