// Loads the seed data into one store through the storage engine, as the server and `quire
// import` reach it (withStore: on the default, the embedded server is started or shared first
// and let go of afterwards): openStorage creates the tables and indexes, then insertMany loads
// the documents in batches; optionally every table is VACUUMed afterwards (vacuumSeeded).
import { fileURLToPath } from 'node:url'
import { openStorage } from '../src/storage/open-storage.ts'
import { loadConfig } from '../src/config.ts'
import { USER_MODEL } from '../src/auth/users/user-model.ts'
import { quoteIdent } from '../src/compiler/sql-text.ts'
import type { Engine, Doc } from '../src/storage/engine.ts'
import type { Model } from '../src/models/model-definition.ts'
import type { SeedData } from './seed-data.ts'
import { log, showProgress } from './report.ts'
import { connectSql } from './sql-connection.ts'
import { envOf, withStore, type Store } from './store.ts'

const BATCH = 2000
export const MODELS_DIR = fileURLToPath(new URL('../models', import.meta.url))

async function insertBatches(engine: Engine, model: Model, docs: Doc[], label: string): Promise<void> {
  for (let start = 0; start < docs.length; start += BATCH) {
    await engine.insertMany(model, docs.slice(start, start + BATCH))
    showProgress(label, Math.min(start + BATCH, docs.length), docs.length)
  }
  await engine.refreshStatistics(model)
}

/**
 * VACUUMs (and ANALYZEs) a freshly seeded database, as autovacuum does within minutes of a bulk
 * load: the scenarios measure that steady state, not autovacuum's first pass over a large load
 * competing with them for the CPU, nor index-only scans (the aggregation's covering index) that
 * visit the table for every row until the visibility map is set.
 */
async function vacuumSeeded(url: string, label: string): Promise<void> {
  const sql = connectSql(url, { max: 1 })
  try {
    const tables = await sql.unsafe(
      "SELECT relname AS name FROM pg_stat_user_tables WHERE schemaname = 'public' ORDER BY " +
        'pg_total_relation_size(relid) DESC'
    )
    log(
      `${label}: vacuuming the ${tables.length} seeded tables, largest first (what autovacuum does within ` +
        `minutes of a load)`
    )
    for (const [i, { name }] of tables.entries()) {
      const started = Date.now()
      await sql.unsafe(`VACUUM (ANALYZE) ${quoteIdent(String(name))}`)
      const seconds = (Date.now() - started) / 1000
      if (seconds >= 1 || i === tables.length - 1)
        log(`  vacuumed ${String(name)} in ${seconds.toFixed(1)} s (${i + 1}/${tables.length})`)
    }
  } finally {
    await sql.end()
  }
}

export interface SeedOptions {
  modelsDir?: string
  /** VACUUM (ANALYZE) every table once loaded (the bench: measure the steady state). */
  vacuum?: boolean
}

/** Creates the models' tables in `store` and loads `data`; its progress lines are labelled `seeding <engine>`. */
export async function seedDatabase(
  store: Store,
  data: SeedData,
  { modelsDir = MODELS_DIR, vacuum = false }: SeedOptions = {}
): Promise<void> {
  const label = `seeding ${store.engine}`
  await withStore(
    store,
    msg => log(`  ${msg}`),
    async () => {
      const config = loadConfig({ ...envOf(store), MODELS_DIR: modelsDir, STATEMENT_TIMEOUT_MS: '60000' })
      const { engine, models } = await openStorage(config, { log: () => {} })
      try {
        for (const user of [data.user, ...(data.moreUsers ?? [])]) await engine.insert(USER_MODEL, user)
        await insertBatches(engine, models.get('link'), data.link, `${label}: link`)
        await insertBatches(engine, models.get('test'), data.test, `${label}: test`)
      } finally {
        await engine.close()
      }
      if (vacuum) await vacuumSeeded(store.url, label)
    }
  )
}
