// `quire serve` with WORKERS > 1: the primary forks the workers (node:cluster; they share the
// port), keeps the rate-limit counters for all of them (counter-channel.ts), passes count-cache
// news between them (count-channel.ts), replaces a worker that dies while serving, and on
// SIGTERM or SIGINT asks every worker to close gracefully and exits once they have. A worker
// that dies before it ever listened is a start-up failure (its own error is already on stderr):
// the primary stops the others and exits 1, rather than start it again and again.
import cluster, { type Worker } from 'node:cluster'
import type { Logger } from 'pino'
import type { Config } from '../config.ts'
import type { AttachedDatabase } from '../embedded/attach-database.ts'
import { createCounterTable } from '../auth/throttle/window-counters.ts'
import { answerCounterQuestions } from './counter-channel.ts'
import { relayCountChanges } from './count-channel.ts'
import { WORKER_ENV } from './cluster-role.ts'

/** How long past SHUTDOWN_TIMEOUT_MS the primary waits for a worker before killing it. */
const KILL_MARGIN_MS = 2000

/** Starts `config.workers` workers and supervises them until a signal stops them all; then lets go of the database. */
export function runPrimary(config: Config, log: Logger, database: AttachedDatabase): void {
  const table = createCounterTable(Date.now)
  const listened = new WeakSet<Worker>()
  let stopping = false

  function fork(): void {
    const worker = cluster.fork(WORKER_ENV)
    answerCounterQuestions(worker, table)
    relayCountChanges(worker)
    worker.once('listening', () => {
      listened.add(worker)
    })
  }

  function stop(signal: string, code: number): void {
    if (stopping) return
    stopping = true
    const workers = Object.values(cluster.workers ?? {}).filter(w => w !== undefined)
    log.info(`${signal}: stopping ${workers.length} workers`)
    for (const worker of workers) worker.process.kill('SIGTERM')
    const killer = setTimeout(() => {
      log.error('workers still running after the shutdown timeout: killing them')
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL')
    }, config.shutdownTimeoutMs + KILL_MARGIN_MS)
    killer.unref()
    process.exitCode = code
  }

  cluster.on('exit', (worker, code, signal) => {
    const how = signal ? `signal ${signal}` : `code ${code}`
    if (stopping) {
      log.info(`worker ${worker.process.pid} stopped (${how})`)
      if (Object.keys(cluster.workers ?? {}).length === 0) {
        log.info('all workers stopped')
        database.release().catch((err: unknown) => {
          log.error({ err }, 'could not stop the embedded PostgreSQL server')
        })
      }
    } else if (!listened.has(worker)) {
      log.error(`worker ${worker.process.pid} exited (${how}) before it listened: stopping`)
      stop('start-up failure', 1)
    } else {
      log.error(`worker ${worker.process.pid} exited (${how}): starting another`)
      fork()
    }
  })
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => stop(signal, 0))
  log.info(`starting ${config.workers} workers on port ${config.port}`)
  for (let i = 0; i < config.workers; i++) fork()
}

/** A worker's configuration: on MongoDB no other process hears of credential changes, so no credential cache. */
export function workerConfig(config: Config): Config {
  return config.databaseUrl.startsWith('mongodb') ? { ...config, credentialCacheMs: 0 } : config
}
