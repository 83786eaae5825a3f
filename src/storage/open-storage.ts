// The one way to get storage, for the server's db plugin and every command: loads the models
// (plus built-in ones), opens the engine named by DATABASE_URL, syncs the models' tables and
// indexes, and wraps the engine in its decorators, in the one order they go in: the metrics
// observer sees each database round trip (innermost), the count cache then reuses counts, and
// the credential-write watch (outermost) runs after a write has settled everywhere beneath it.
import type { Config } from '../config.ts'
import type { Engine } from './engine.ts'
import type { Model } from '../models/model-definition.ts'
import { openEngine } from './open-engine.ts'
import { probeDatabase } from './probe-database.ts'
import { observeEngine, type EngineObserver } from './decorators/observe-engine.ts'
import { withCountCache, type CountPeers } from './decorators/count-cache.ts'
import { watchWrites, type WriteWatch } from './decorators/write-watch.ts'
import { loadModels } from '../models/load-models.ts'
import { ModelRegistry } from '../models/model-registry.ts'
import { USER_MODEL } from '../auth/users/user-model.ts'

export interface StorageOptions {
  log: (msg: string) => void
  /** Whether to sync the models' tables and indexes (default true); `quire secret adopt` needs none. */
  sync?: boolean
  /** Internal models synced with the configured ones (`quire admin create`: the credential model). */
  internalModels?: Model[]
  /** Sees every operation (the metrics plugin). */
  observer?: EngineObserver
  /** The other workers' count caches (cluster mode). */
  countPeers?: CountPeers
  /** Writes followed by something, innermost first: the response cache's, then the credential caches'. */
  watches?: WriteWatch[]
}

export interface Storage {
  /** The decorated engine every caller uses. */
  engine: Engine
  models: ModelRegistry
}

export async function openStorage(config: Config, options: StorageOptions): Promise<Storage> {
  const models = new ModelRegistry(loadModels(config.modelsDir, [USER_MODEL]))
  await probeDatabase(config.databaseUrl)
  const engine = await openEngine(config.databaseUrl, { ...config, log: options.log })
  if (options.sync ?? true) {
    try {
      await engine.syncModels([...models.all(), ...(options.internalModels ?? [])])
    } catch (err) {
      await engine.close()
      throw err
    }
  }
  return { engine: decorate(engine, config, options), models }
}

function decorate(engine: Engine, config: Config, options: StorageOptions): Engine {
  const observed = options.observer ? observeEngine(engine, options.observer) : engine
  const counted = withCountCache(observed, config.countCacheMs, Date.now, options.countPeers)
  return (options.watches ?? []).reduce(watchWrites, counted)
}
