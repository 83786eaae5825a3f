// Starts a server script (bench/serve.ts, bench/baseline-server.ts) in its own
// Node process, so the load generator never shares its event loop, and stops it.
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { CpuMeter } from './load.ts'

export interface ChildServer {
  name: string
  pid: number
  /** The server's address on loopback, e.g. http://127.0.0.1:41234 */
  url: string
  /** CPU time (user + system, all threads) of the server process. */
  cpuMeter: CpuMeter
  /** Settles when the process exits, with its exit code or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  stop: () => Promise<void>
}

/** Where the server's stdout and stderr go: inherited (the default), or to a function, chunk by chunk. */
export type ServerOutput = 'inherit' | ((chunk: string) => void)

const START_TIMEOUT_MS = 60_000
/** Long enough for a server on the embedded default to stop it on the way out (a fast shutdown writes a checkpoint). */
const STOP_TIMEOUT_MS = 30_000
const repoRoot = fileURLToPath(new URL('..', import.meta.url))

function waitForPort(child: ChildProcess, name: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name} did not report its port within ${START_TIMEOUT_MS / 1000} s`)),
      START_TIMEOUT_MS
    )
    child.once('message', (msg: { port?: number }) => {
      clearTimeout(timer)
      resolve(Number(msg.port))
    })
    child.once('exit', code => {
      clearTimeout(timer)
      reject(new Error(`${name} exited with code ${code} before listening`))
    })
  })
}

function askCpuMicros(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    const onMessage = (msg: { cpuMicros?: number }): void => {
      if (msg.cpuMicros === undefined) return
      child.off('message', onMessage)
      resolve(msg.cpuMicros)
    }
    child.on('message', onMessage)
    child.send({ type: 'cpu' }, err => {
      if (err) {
        child.off('message', onMessage)
        reject(err)
      }
    })
  })
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise(resolve => child.once('exit', resolve))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS)
  await exited
  clearTimeout(timer)
}

/**
 * Runs `script` (a path relative to bench/) under tsx with `env` added (a variable set to
 * undefined is removed: DATABASE_URL for the embedded default); it must listen on 127.0.0.1 and
 * send `{port}` over IPC. `nodeArgs` go before the script (e.g. --cpu-prof).
 */
export async function startChildServer(
  name: string,
  script: string,
  env: Record<string, string | undefined>,
  nodeArgs: string[] = [],
  output: ServerOutput = 'inherit'
): Promise<ChildServer> {
  const child = spawn(
    process.execPath,
    [...nodeArgs, '--import', 'tsx', fileURLToPath(new URL(script, import.meta.url))],
    {
      cwd: repoRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', output === 'inherit' ? 'inherit' : 'pipe', output === 'inherit' ? 'inherit' : 'pipe', 'ipc']
    }
  )
  if (output !== 'inherit')
    for (const stream of [child.stdout, child.stderr]) stream?.setEncoding('utf8').on('data', output)
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(resolve =>
    child.once('exit', (code, signal) => resolve({ code, signal }))
  )
  try {
    const port = await waitForPort(child, name)
    const cpuMeter: CpuMeter = async () => {
      const before = await askCpuMicros(child)
      return async () => (await askCpuMicros(child)) - before
    }
    return { name, pid: child.pid!, url: `http://127.0.0.1:${port}`, cpuMeter, exited, stop: () => stopChild(child) }
  } catch (err) {
    await stopChild(child)
    throw err
  }
}

/** CPU time (user + system, all threads) this process has used, in microseconds. */
export function ownCpuMicros(): number {
  const { user, system } = process.cpuUsage()
  return user + system
}

/**
 * Reports the port to the parent, answers its CPU-time questions (this process's, or what
 * `cpuMicros` counts, e.g. a cluster's), and exits when told to or when the parent goes away.
 */
export function serveUntilStopped(
  port: number,
  close: () => Promise<void>,
  cpuMicros: () => Promise<number> = async () => ownCpuMicros()
): void {
  let closing = false
  const shutdown = (): void => {
    if (closing) return
    closing = true
    close().then(
      () => process.exit(0),
      () => process.exit(1)
    )
  }
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, shutdown)
  process.on('disconnect', shutdown)
  process.on('message', (msg: { type?: string }) => {
    if (msg.type !== 'cpu') return
    cpuMicros().then(
      micros => process.send?.({ cpuMicros: micros }),
      () => {}
    )
  })
  process.send?.({ port })
}
