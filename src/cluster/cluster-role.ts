// Whether this process is a worker forked by Quire's own cluster primary (`quire serve` with
// WORKERS > 1, or the bench's), which answers counter questions and relays news; a worker of
// some other supervisor that uses node:cluster (PM2's cluster mode) runs as a lone process.
import cluster from 'node:cluster'

/** The environment variable Quire's primary gives its workers. */
const WORKER_MARK = 'QUIRE_CLUSTER_WORKER'

/** The environment of a worker that Quire's primary forks. */
export const WORKER_ENV = { [WORKER_MARK]: '1' }

export function isQuireWorker(): boolean {
  return cluster.isWorker && process.env[WORKER_MARK] === '1'
}
