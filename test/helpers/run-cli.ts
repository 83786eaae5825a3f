// Runs the `quire` command line (src/cli.ts, through the tests' TypeScript loader) in a child process, as an operator
// would: a command to completion (runCli), or `quire serve` listening on a free port (startServer).
import { spawn, type ChildProcess } from 'node:child_process'
import { freePort } from '../../src/free-port.ts'
import { fileURLToPath } from 'node:url'
import { SOURCE_LOADER_ARGS } from './source-loader.ts'

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** node's arguments for `quire`, run from REPO_ROOT by a child that inherits this process's environment. */
export const QUIRE_CLI_ARGS: readonly string[] = [...SOURCE_LOADER_ARGS, 'src/cli.ts']

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

function spawnCli(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [...QUIRE_CLI_ARGS, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
}

/**
 * `quire ...args` with `env` added to this process's environment; resolves when it exits, or when
 * it is killed after `killAfterMs` (a command that must not hang: code null then).
 */
export function runCli(args: string[], env: Record<string, string>, killAfterMs?: number): Promise<CliResult> {
  const child = spawnCli(args, env)
  const killer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs)
  child.once('exit', () => clearTimeout(killer))
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', chunk => {
    stdout += chunk
  })
  child.stderr!.on('data', chunk => {
    stderr += chunk
  })
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('close', code => resolve({ code, stdout, stderr }))
  })
}

export interface ServerProcess {
  url: string
  child: ChildProcess
  /** Every line the server has written to stdout so far (JSON log lines). */
  lines: string[]
  /** What it wrote to stderr so far. */
  stderr: () => string
  /** Resolves with the exit code when the process ends. */
  exited: Promise<number | null>
}

/** `quire serve` on 127.0.0.1 and a free port, resolved once GET /health answers. */
export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort()
  const child = spawnCli(['serve'], { HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info', ...env })
  const lines: string[] = []
  let stderr = ''
  let pending = ''
  child.stdout!.on('data', chunk => {
    const parts = (pending + chunk).split('\n')
    pending = parts.pop()!
    lines.push(...parts)
  })
  child.stderr!.on('data', chunk => {
    stderr += chunk
  })
  const exited = new Promise<number | null>(resolve => child.once('exit', code => resolve(code)))
  const url = `http://127.0.0.1:${port}`
  for (;;) {
    if (child.exitCode !== null) throw new Error(`quire serve exited with code ${child.exitCode}: ${stderr}`)
    if (
      await fetch(`${url}/health`).then(
        r => r.ok,
        () => false
      )
    )
      return { url, child, lines, exited, stderr: () => stderr }
    await new Promise(resolve => setTimeout(resolve, 50))
  }
}
