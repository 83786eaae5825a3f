// Count-cache news between the workers of a `quire serve` cluster: a worker that writes a model
// tells the primary, which passes the model names on to every other worker, and they drop
// those models' cached list counts (src/storage/decorators/count-cache.ts). Not awaited: the news is two
// local IPC hops behind the write, where it would otherwise wait for COUNT_CACHE_MS.
import cluster, { type Worker } from 'node:cluster'
import type { CountPeers } from '../storage/decorators/count-cache.ts'

const NEWS = 'quire:counts-changed'

interface News {
  type: typeof NEWS
  models: string[]
}

/** The primary: passes `worker`'s news on to the other workers. */
export function relayCountChanges(worker: Worker): void {
  worker.on('message', (message: News) => {
    if (message?.type !== NEWS) return
    for (const other of Object.values(cluster.workers ?? {})) {
      if (other && other !== worker && other.isConnected()) other.send(message)
    }
  })
}

/** A worker: its count cache's peers are the other workers, through the primary. */
export function countPeersInCluster(): CountPeers {
  return {
    tell: models => {
      if (process.connected) process.send?.({ type: NEWS, models } satisfies News)
    },
    hear: listener => {
      process.on('message', (message: News) => {
        if (message?.type === NEWS && Array.isArray(message.models)) listener(message.models)
      })
    }
  }
}
