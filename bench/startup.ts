// Start-up time as a newcomer meets it, on the embedded default: from spawning the command (the
// build already made) to the first answer of GET /health, on a new data directory (initdb, the
// PostgreSQL server's start, the tables' creation) and on a restart of the same one after a
// graceful shutdown (which stops the server: the restart starts it again). Each is measured with
// `npm start` (what the README tells a newcomer to run, and what the goals are judged on) and
// with `quire serve` itself (`node bin/quire.js serve`, what `npm start` runs: the difference is
// npm's own start). After each shutdown the data directory must have no server left running.
// The server logs at info level (a few lines at start), so that each start shows where its time
// went: initdb's and the PostgreSQL server's start, as Quire reports them.
import { spawn, type ChildProcess } from 'node:child_process'
import { freePort } from '../src/free-port.ts'
import { fileURLToPath } from 'node:url'
import { log } from './report.ts'
import { newDataDir, serverPid, stopLeftServer } from './embedded-store.ts'

const repoRoot = fileURLToPath(new URL('..', import.meta.url))
const GIVE_UP_MS = 60_000
/** How long the embedded server may take to be gone once Quire has exited. */
const SERVER_GONE_MS = 5000

/** The goals, in milliseconds. */
export const STARTUP_GOALS = { fresh: 2000, restart: 1000 }

/** The commands timed: the first is the one the goals are judged on. */
const COMMANDS: Array<{ name: string; file: string; args: string[] }> = [
  { name: 'npm start', file: 'npm', args: ['start', '--silent'] },
  { name: 'quire serve', file: process.execPath, args: ['bin/quire.js', 'serve'] }
]

export interface StartupTimes {
  freshMs: number[]
  restartMs: number[]
}
export interface StartupResult {
  /** Per command (`npm start`, `quire serve`). */
  commands: Record<string, StartupTimes>
  /** The lines printed (again beside the table at the end). */
  lines: string[]
  /**
   * What went wrong around the starts: a server left running after a graceful shutdown, or already running before a
   * start.
   */
  problems: string[]
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(1000) })).ok
  } catch {
    return false
  }
}

/** Stops the command and everything under it (its own process group) with SIGTERM, and waits for it to exit. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise(resolve => child.once('exit', resolve))
  process.kill(-child.pid!, 'SIGTERM')
  await exited
}

/**
 * Where a start's time went, from what Quire logged (pino's `time`, against the spawn's clock):
 * "before the database 700 ms, initdb 610 ms, server start 180 ms, then listening at 1650 ms".
 * "Before the database" is Node's start, npm's if any, and the command line's loading, up to the
 * moment Quire turned to its embedded server (the first step's end less its duration).
 */
function embeddedSteps(output: string, spawnedAt: number): string {
  const steps: string[] = []
  let first: number | undefined
  for (const line of output.split('\n')) {
    let entry: { msg?: unknown; time?: unknown }
    try {
      entry = JSON.parse(line) as { msg?: unknown; time?: unknown }
    } catch {
      continue
    }
    const msg = String(entry.msg ?? '')
    const at = typeof entry.time === 'number' ? entry.time - spawnedAt : undefined
    const created = /^created a PostgreSQL .* \((\d+) ms\)$/.exec(msg)
    const started = /^started the embedded PostgreSQL server .*, (\d+) ms\)$/.exec(msg)
    const took = Number((created ?? started)?.[1])
    if (first === undefined && at !== undefined && !Number.isNaN(took)) first = at - took
    if (created) steps.push(`initdb ${created[1]} ms`)
    else if (started) steps.push(`server start ${started[1]} ms`)
    else if (msg.includes('embedded PostgreSQL server')) steps.push(msg)
    else if (msg.startsWith('Server listening') && at !== undefined) steps.push(`listening at ${Math.round(at)} ms`)
  }
  if (first !== undefined) steps.unshift(`before the database ${Math.round(first)} ms`)
  return steps.join(', ')
}

/**
 * Milliseconds from spawning `command` to the first 200 of /health, and what Quire said of its embedded server; the
 * server is stopped gracefully afterwards.
 */
async function timeOneStart(
  command: (typeof COMMANDS)[number],
  dataDir: string
): Promise<{ ms: number; steps: string }> {
  const port = await freePort()
  const env: Record<string, string | undefined> = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json'
  }
  delete env.DATABASE_URL
  delete env.WORKERS
  const started = performance.now()
  const spawnedAt = Date.now()
  const child = spawn(command.file, command.args, {
    cwd: repoRoot,
    detached: true,
    env,
    stdio: ['ignore', 'pipe', 'inherit']
  })
  let output = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk
  })
  try {
    let exited = false
    child.once('exit', () => {
      exited = true
    })
    while (!(await answers(`http://127.0.0.1:${port}/health`))) {
      if (exited)
        throw new Error(
          `${command.name} exited with code ${child.exitCode} before answering (is the build made? npm run build)`
        )
      if (performance.now() - started > GIVE_UP_MS)
        throw new Error(`${command.name}: no answer within ${GIVE_UP_MS / 1000} s`)
      await new Promise(resolve => setTimeout(resolve, 10))
    }
    const ms = performance.now() - started
    return { ms, steps: embeddedSteps(output, spawnedAt) }
  } finally {
    await stop(child)
  }
}

/**
 * After a graceful shutdown the embedded server must be gone (Quire, its last client, stops it); a problem otherwise.
 */
async function checkServerStopped(dataDir: string, after: string): Promise<string | undefined> {
  const deadline = performance.now() + SERVER_GONE_MS
  while (serverPid(dataDir) !== undefined) {
    if (performance.now() > deadline) {
      const problem =
        `the embedded PostgreSQL server (pid ${serverPid(dataDir)}) was still ` +
        `running ${SERVER_GONE_MS / 1000} s after ${after} shut down gracefully`
      log(`  ${problem}`)
      await stopLeftServer(dataDir, msg => log(`  ${msg}`))
      return problem
    }
    await new Promise(resolve => setTimeout(resolve, 20))
  }
  return undefined
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

function describe(label: string, values: number[], goal: number): string {
  const verdict = median(values) < goal ? 'met' : 'NOT met'
  return (
    `start-up, ${label}: median ${(median(values) / 1000).toFixed(2)} s ` +
    `(${values.map(v => (v / 1000).toFixed(2)).join(', ')}); goal < ${goal / 1000} s: ${verdict}`
  )
}

/** `runs` pairs, per command, of a start on a new data directory and a restart on it; prints and returns the times. */
export async function measureStartup(runs: number): Promise<StartupResult> {
  const result: StartupResult = {
    commands: Object.fromEntries(COMMANDS.map(c => [c.name, { freshMs: [], restartMs: [] }])),
    lines: [],
    problems: []
  }
  for (let i = 0; i < runs; i++) {
    for (const command of COMMANDS) {
      const dir = newDataDir('quire-bench-startup-')
      const times = result.commands[command.name]
      try {
        for (const [kind, into] of [
          ['a new data directory', times.freshMs],
          ['a restart', times.restartMs]
        ] as const) {
          const { ms, steps } = await timeOneStart(command, dir.dataDir)
          into.push(ms)
          const problem = await checkServerStopped(dir.dataDir, command.name)
          if (problem) result.problems.push(problem)
          log(
            `  ${command.name} on ${kind}: first answer after ${(ms / 1000).toFixed(2)} s ` +
              `(${i + 1}/${runs}; ${steps || 'nothing said of the embedded server'})` +
              (problem ? ' (server left running)' : '')
          )
        }
      } finally {
        await dir.remove(msg => {
          result.problems.push(msg)
          log(`  ${msg}`)
        })
      }
    }
  }
  for (const command of COMMANDS) {
    const times = result.commands[command.name]
    result.lines.push(describe(`${command.name}, new data directory`, times.freshMs, STARTUP_GOALS.fresh))
    result.lines.push(describe(`${command.name}, restart`, times.restartMs, STARTUP_GOALS.restart))
  }
  for (const line of result.lines) log(line)
  return result
}
