// What every `quire` command does first and last: with DATABASE_URL unset, start (or share)
// the embedded PostgreSQL server of DATA_DIR before anything connects, and let go of it after
// everything has closed (the last process out stops it). With DATABASE_URL set, nothing to do.
import type { Config } from '../config.ts'

export interface AttachedDatabase {
  /** Lets go of the embedded server (a no-op for a database server of one's own). */
  release: () => Promise<void>
}

export async function attachDatabase(config: Config, log: (msg: string) => void): Promise<AttachedDatabase> {
  if (!config.embedded) return { release: async () => {} }
  const { useEmbeddedServer } = await import('./embedded-server.ts')
  return await useEmbeddedServer(config.dataDir, log)
}

/** Runs `work` with the database attached, releasing it however `work` ends. */
export async function withDatabase<T>(config: Config, log: (msg: string) => void, work: () => Promise<T>): Promise<T> {
  const database = await attachDatabase(config, log)
  try {
    return await work()
  } finally {
    await database.release()
  }
}
