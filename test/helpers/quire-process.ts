// A second Quire server in a process of its own (`quire serve` from the sources, under
// tsx), for the tests where several processes share one database; stopped with SIGTERM
// when the test ends.
import { spawn } from 'node:child_process'
import { freePort } from '../../src/free-port.ts'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'

const repoRoot = fileURLToPath(new URL('../..', import.meta.url))
const START_TIMEOUT_MS = 60_000

/** Starts `quire serve` with `env` (DATABASE_URL, MODELS_DIR, ...); its base URL once /health answers. */
export async function startQuireProcess(t: Test, env: Record<string, string>): Promise<string> {
  const port = await freePort()
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  child.stdout.on('data', chunk => {
    output += String(chunk)
  })
  child.stderr.on('data', chunk => {
    output += String(chunk)
  })
  const exited = new Promise(resolve => child.once('exit', resolve))
  t.teardown(async () => {
    child.kill('SIGTERM')
    await exited
  })
  const base = `http://127.0.0.1:${port}`
  for (const started = Date.now(); Date.now() - started < START_TIMEOUT_MS; ) {
    if (child.exitCode !== null) throw new Error(`quire serve exited with ${child.exitCode}: ${output.slice(-2000)}`)
    const ok = await fetch(`${base}/health`).then(
      res => res.ok,
      () => false
    )
    if (ok) return base
    await new Promise(resolve => setTimeout(resolve, 200))
  }
  throw new Error(`quire serve did not answer within ${START_TIMEOUT_MS / 1000} s: ${output.slice(-2000)}`)
}
