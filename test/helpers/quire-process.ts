// A Quire server in a process of its own (`quire serve` from the sources, test/helpers/source-loader.ts): for the
// tests where several processes share one database (stopped with SIGTERM when the test ends),
// and for the JXP suite's runner (test/jxp-suite/run.mts).
import { spawn } from 'node:child_process'
import { freePort } from '../../src/free-port.ts'
import type { Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { QUIRE_CLI_ARGS, REPO_ROOT } from './run-cli.ts'
import { SOURCE_LOADER_ENV } from './source-loader.ts'

export interface QuireProcess {
  url: string
  stop: () => Promise<void>
}

/**
 * Spawns `quire serve` with `env` (DATABASE_URL, MODELS_DIR, ...); its base URL once /health answers within
 * `timeoutMs`.
 */
export async function spawnQuire(env: Record<string, string>, timeoutMs = 60_000): Promise<QuireProcess> {
  const port = await freePort()
  const child = spawn(process.execPath, [...QUIRE_CLI_ARGS, 'serve'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, ...SOURCE_LOADER_ENV, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  const keep = (chunk: Buffer): void => {
    output = (output + String(chunk)).slice(-20_000)
  }
  child.stdout.on('data', keep)
  child.stderr.on('data', keep)
  const exited = new Promise(resolve => child.once('exit', resolve))
  const stop = async (): Promise<void> => {
    child.kill('SIGTERM')
    await exited
  }
  const url = `http://127.0.0.1:${port}`
  for (const started = Date.now(); Date.now() - started < timeoutMs; ) {
    if (child.exitCode !== null) throw new Error(`quire serve exited with ${child.exitCode}: ${output.slice(-2000)}`)
    const ok = await fetch(`${url}/health`).then(
      res => res.ok,
      () => false
    )
    if (ok) return { url, stop }
    await new Promise(resolve => setTimeout(resolve, 200))
  }
  await stop()
  throw new Error(`quire serve did not answer within ${timeoutMs / 1000} s: ${output.slice(-2000)}`)
}

/** Starts `quire serve` with `env`, stopped when `t` ends; its base URL. */
async function startQuireProcess(t: Test, env: Record<string, string>): Promise<string> {
  const quire = await spawnQuire(env)
  t.teardown(quire.stop)
  return quire.url
}

/** Another Quire process on `app`'s database and models (stopped when the test ends): its base URL. */
export function startPeerProcess(t: Test, app: FastifyInstance): Promise<string> {
  return startQuireProcess(t, {
    DATABASE_URL: app.config.databaseUrl,
    MODELS_DIR: app.config.modelsDir,
    LOG_LEVEL: 'warn',
    MAX_EVENT_LOOP_DELAY_MS: '0',
    BCRYPT_ROUNDS: '4'
  })
}
