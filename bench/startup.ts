// Start-up time as a newcomer meets it: from `npm start` (the build already made) to the first
// answer of GET /health, on a fresh PGlite data directory and on a restart of the same one.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { freePort } from '../src/free-port.ts'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { log } from './report.ts'

const repoRoot = fileURLToPath(new URL('..', import.meta.url))
const GIVE_UP_MS = 60_000

/** The goals, in milliseconds. */
export const STARTUP_GOALS = { fresh: 3000, restart: 2000 }

export interface StartupResult { freshMs: number[], restartMs: number[] }

async function answers (url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(1000) })).ok
  } catch { return false }
}

/** Stops `npm start` and the server under it (its own process group), and waits for it to exit. */
async function stop (child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise(resolve => child.once('exit', resolve))
  process.kill(-child.pid!, 'SIGTERM')
  await exited
}

/** Milliseconds from spawning `npm start` to the first 200 of /health; the server is stopped afterwards. */
async function timeOneStart (dataDir: string): Promise<number> {
  const port = await freePort()
  const started = performance.now()
  const child = spawn('npm', ['start', '--silent'], {
    cwd: repoRoot,
    detached: true,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit']
  })
  try {
    let exited = false
    child.once('exit', () => { exited = true })
    while (!await answers(`http://127.0.0.1:${port}/health`)) {
      if (exited) throw new Error(`npm start exited with code ${child.exitCode} before answering (is the build made? npm run build)`)
      if (performance.now() - started > GIVE_UP_MS) throw new Error(`no answer within ${GIVE_UP_MS / 1000} s`)
      await new Promise(resolve => setTimeout(resolve, 10))
    }
    return performance.now() - started
  } finally {
    await stop(child)
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

function describe (label: string, values: number[], goal: number): string {
  const verdict = median(values) < goal ? 'met' : 'NOT met'
  return `start-up, ${label}: median ${(median(values) / 1000).toFixed(2)} s (${values.map(v => (v / 1000).toFixed(2)).join(', ')}); goal < ${goal / 1000} s: ${verdict}`
}

/** `runs` pairs of a start on a new data directory and a restart on it; prints and returns the times. */
export async function measureStartup (runs: number): Promise<StartupResult> {
  const result: StartupResult = { freshMs: [], restartMs: [] }
  for (let i = 0; i < runs; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'quire-bench-startup-'))
    try {
      result.freshMs.push(await timeOneStart(join(dir, 'data')))
      result.restartMs.push(await timeOneStart(join(dir, 'data')))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  log(describe('fresh data directory', result.freshMs, STARTUP_GOALS.fresh))
  log(describe('restart', result.restartMs, STARTUP_GOALS.restart))
  return result
}
