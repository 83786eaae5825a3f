// Runs the embedded PostgreSQL server of a DATA_DIR, one per directory whoever asks: a command
// that finds it running (its postmaster.pid names a live process) shares it; otherwise it starts
// it, detached, so that it outlives a Quire killed with kill -9 and the next start finds it.
// Two processes starting at once are settled by PostgreSQL's own lock: the loser uses the
// winner's. The last Quire process to let go of the server (no other client connected) stops it.
import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, existsSync, openSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import postgres from 'postgres'
import { StartupError } from '../startup-error.ts'
import { prepareCluster } from './cluster-dir.ts'
import { clusterDirOf, embeddedDatabaseUrl } from './data-dir.ts'
import { postgresTarget } from '../storage/postgres/postgres-url.ts'
import { findPostgresBinaries } from './postgres-binaries.ts'
import { asServerUser, serverUser } from './server-user.ts'
import { isStale, readPidFile, runningServer, waitUntilReady, waitUntilStopped } from './postmaster-pid.ts'

export interface EmbeddedServer {
  /** The server's postgres:// URL (its Unix socket). */
  url: string
  /** Lets go of the server: stops it when no other client is connected to it. */
  release: () => Promise<void>
}

/** How long a start or a stop may take before it is reported as failed. */
const WAIT_MS = 60_000
const SERVER_LOG = 'server.log'

/** The server log's last lines written since `from` (a byte offset), for an error message. */
function logSince(cluster: string, from: number): string {
  try {
    const text = readFileSync(join(cluster, SERVER_LOG)).subarray(from).toString('utf8')
    return text
      .trim()
      .split('\n')
      .filter(line => line.trim() !== '')
      .slice(-3)
      .join(' / ')
  } catch {
    return ''
  }
}

function logSize(cluster: string): number {
  try {
    return statSync(join(cluster, SERVER_LOG)).size
  } catch {
    return 0
  }
}

/** Waits until a server is ready on the cluster, or throws when `child` (our start) failed and no other server runs. */
async function waitReady(cluster: string, child: ChildProcess | undefined, logFrom: number): Promise<void> {
  try {
    await waitUntilReady(cluster, WAIT_MS, () =>
      child !== undefined && child.exitCode !== null && runningServer(cluster) === undefined
        ? `did not start (exit code ${child.exitCode}): ` +
          `${logSince(cluster, logFrom) || `see ${join(cluster, SERVER_LOG)}`}`
        : undefined
    )
  } catch (err) {
    throw new StartupError(`the embedded PostgreSQL server in ${cluster} ${(err as Error).message}`)
  }
}

async function waitStopped(cluster: string): Promise<void> {
  if (!(await waitUntilStopped(cluster, WAIT_MS)))
    throw new StartupError(`the embedded PostgreSQL server in ${cluster} did not stop within ${WAIT_MS / 1000} s`)
}

/** Starts the server on the cluster, detached from this process, its output appended to server.log. */
function spawnServer(cluster: string, bin: string, user: ReturnType<typeof serverUser>): ChildProcess {
  const logFd = openSync(join(cluster, SERVER_LOG), 'a', 0o600)
  try {
    const child = spawn(join(bin, 'postgres'), ['-D', cluster], {
      ...asServerUser(user),
      detached: true,
      stdio: ['ignore', logFd, logFd]
    })
    child.on('error', () => {}) // reported through its exit code
    child.unref()
    return child
  } finally {
    closeSync(logFd)
  }
}

/** Other clients connected to the server, seen through a connection of our own. */
async function otherClients(url: string): Promise<number> {
  const target = postgresTarget(url)
  const sql = postgres(target.url, { host: target.host, max: 1, onnotice: () => {}, connect_timeout: 5 })
  try {
    const [row] = await sql`SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`
    return row.n as number
  } finally {
    await sql.end({ timeout: 5 })
  }
}

/** Stops the server when nobody else uses it; `log` says which. */
async function letGo(cluster: string, url: string, log: (msg: string) => void): Promise<void> {
  const running = runningServer(cluster)
  if (running === undefined) return
  const others = await otherClients(url).catch(() => 0)
  if (others > 0) {
    log(`the embedded PostgreSQL server keeps running: ${others} other client connection(s)`)
    return
  }
  process.kill(running.pid, 'SIGINT') // fast shutdown: PostgreSQL rolls back what is open and checkpoints
  await waitStopped(cluster)
  log('stopped the embedded PostgreSQL server')
}

/**
 * Removes a pid file that names no PostgreSQL server: PostgreSQL itself refuses to start while
 * the pid it names is alive, whatever that process is (after a container restart, often one of
 * Quire's own threads).
 */
function removeStalePidFile(cluster: string): void {
  const file = readPidFile(cluster)
  if (file !== undefined && isStale(file)) rmSync(join(cluster, 'postmaster.pid'), { force: true })
}

/** Starts the embedded server of `dataDir` (creating its cluster when new), or shares the one already running. */
export async function useEmbeddedServer(dataDir: string, log: (msg: string) => void): Promise<EmbeddedServer> {
  const user = serverUser()
  const binaries = await findPostgresBinaries(user)
  const cluster = prepareCluster(dataDir, binaries, user, log)
  const url = embeddedDatabaseUrl(dataDir)
  removeStalePidFile(cluster)
  const found = runningServer(cluster)
  if (found?.status === 'stopping') await waitStopped(cluster)
  if (found !== undefined && found.status !== 'stopping') {
    await waitReady(cluster, undefined, 0)
    log(`using the embedded PostgreSQL server already running in ${cluster} (pid ${found.pid})`)
  } else {
    const started = performance.now()
    const from = logSize(cluster)
    const child = spawnServer(cluster, binaries.bin, user)
    await waitReady(cluster, child, from)
    const pid = runningServer(cluster)?.pid
    log(
      pid === child.pid
        ? `started the embedded PostgreSQL server in ${cluster} ` +
            `(pid ${pid}, ${Math.round(performance.now() - started)} ms)`
        : `using the embedded PostgreSQL server another process started in ${cluster} (pid ${pid})`
    )
  }
  let released = false
  return {
    url,
    release: async () => {
      if (released) return
      released = true
      await letGo(cluster, url, log)
    }
  }
}

/** Whether a DATA_DIR has a server running on it now (for tests and tools). */
export function embeddedServerRunning(dataDir: string): boolean {
  const cluster = clusterDirOf(dataDir)
  return existsSync(cluster) && runningServer(cluster) !== undefined
}
