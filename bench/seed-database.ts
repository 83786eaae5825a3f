// Loads the seed data into one database through the storage engine: openStorage
// creates the tables and indexes, then insertMany loads the documents in batches.
import { fileURLToPath } from 'node:url'
import { openStorage } from '../src/engines/open-storage.ts'
import { loadConfig } from '../src/config.ts'
import { USER_MODEL } from '../src/auth/user-model.ts'
import type { Engine, Doc } from '../src/engines/engine.ts'
import type { Model } from '../src/models/model-definition.ts'
import type { SeedData } from './seed-data.ts'
import { showProgress } from './report.ts'

const BATCH = 2000
export const MODELS_DIR = fileURLToPath(new URL('../models', import.meta.url))

async function insertBatches (engine: Engine, model: Model, docs: Doc[], label: string): Promise<void> {
  for (let start = 0; start < docs.length; start += BATCH) {
    await engine.insertMany(model, docs.slice(start, start + BATCH))
    showProgress(label, Math.min(start + BATCH, docs.length), docs.length)
  }
  await engine.refreshStatistics(model)
}

/** Creates the models' tables in the database at `url` (postgres:// or pglite://DIR) and loads `data`. */
export async function seedDatabase (url: string, data: SeedData, engineName: string, modelsDir = MODELS_DIR): Promise<void> {
  const config = loadConfig({ DATABASE_URL: url, MODELS_DIR: modelsDir, STATEMENT_TIMEOUT_MS: '60000' })
  const { engine, models } = await openStorage(config, () => {})
  try {
    for (const user of [data.user, ...data.moreUsers ?? []]) await engine.insert(USER_MODEL, user)
    await insertBatches(engine, models.get('link'), data.link, `seeding ${engineName}: link`)
    await insertBatches(engine, models.get('test'), data.test, `seeding ${engineName}: test`)
  } finally {
    await engine.close()
  }
}
