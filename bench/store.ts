// Where the bench and the reliability suite keep data: a database of the throwaway PostgreSQL
// cluster (`postgres`, over TCP: DATABASE_URL), the embedded default (`default`: DATA_DIR with
// DATABASE_URL unset, as `npm start` runs it), or a FerretDB server (`ferretdb`, the MongoDB
// engine: a mongodb:// DATABASE_URL). Servers and commands on a store are configured by envOf; the bench's own SQL on
// it runs inside withStore, which starts (or shares) the default's
// server the way every `quire` command does (withDatabase) and lets go of it afterwards.
import { loadConfig } from '../src/config.ts'
import { withDatabase } from '../src/embedded/attach-database.ts'
import { embeddedDatabaseUrl } from '../src/embedded/data-dir.ts'

export interface Store {
  /** The engine it is: `postgres`, `default` or `ferretdb`. */
  engine: string
  /**
   * The database's postgres:// URL (the embedded server's socket URL for the default: connect through connectSql), or
   * mongodb:// URL.
   */
  url: string
  /** The default's DATA_DIR; undefined for a database of an external server. */
  dataDir?: string
}

/** A store on an external PostgreSQL server. */
export const externalStore = (url: string): Store => ({ engine: 'postgres', url })

/** A store on a FerretDB server (the MongoDB engine; `url` is its mongodb:// URL with the database). */
export const ferretStore = (url: string): Store => ({ engine: 'ferretdb', url })

/** The embedded default's store in `dataDir`. */
export const embeddedStore = (dataDir: string): Store => ({
  engine: 'default',
  url: embeddedDatabaseUrl(dataDir),
  dataDir
})

/**
 * The environment a server or command on the store gets: DATABASE_URL, or DATA_DIR with
 * DATABASE_URL removed (an undefined value is left out of a child's environment), so that a
 * DATABASE_URL in the caller's environment cannot redirect the default elsewhere.
 */
export function envOf(store: Store): Record<string, string | undefined> {
  return store.dataDir === undefined
    ? { DATABASE_URL: store.url }
    : { DATA_DIR: store.dataDir, DATABASE_URL: undefined }
}

/**
 * Runs `work` with the store's database reachable (the default's server started or shared, and let go of afterwards).
 */
export async function withStore<T>(
  store: Store,
  log: (msg: string) => void,
  work: () => Promise<T>,
  env: Record<string, string> = {}
): Promise<T> {
  return await withDatabase(loadConfig({ ...env, ...envOf(store) }), log, work)
}
