// Opens the configured storage: loads the models (plus built-in ones), opens
// the engine named by DATABASE_URL and syncs the models' tables and indexes.
// Shared by the server's db plugin and the command line.
import type { Config } from '../config.ts'
import type { Engine } from './engine.ts'
import { openEngine } from './open-engine.ts'
import { probeDatabase } from './probe-database.ts'
import { loadModels } from '../models/load-models.ts'
import { ModelRegistry } from '../models/model-registry.ts'
import { USER_MODEL } from '../auth/users/user-model.ts'

export interface Storage {
  engine: Engine
  models: ModelRegistry
}

export async function openStorage (config: Config, log: (msg: string) => void): Promise<Storage> {
  const models = new ModelRegistry(loadModels(config.modelsDir, [USER_MODEL]))
  await probeDatabase(config.databaseUrl)
  const engine = await openEngine(config.databaseUrl, { ...config, log })
  try {
    await engine.syncModels(models.all())
  } catch (err) {
    await engine.close()
    throw err
  }
  return { engine, models }
}
