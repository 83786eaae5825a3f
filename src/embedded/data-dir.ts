// What Quire keeps in DATA_DIR when DATABASE_URL is unset: the embedded PostgreSQL cluster in
// `postgres/` (its Unix socket inside it) and the service secret's file. Paths only, so that the
// configuration can name the embedded server's URL without loading anything.
import { join, resolve } from 'node:path'

/** The cluster's directory inside DATA_DIR. */
export const CLUSTER_DIR = 'postgres'
/** The service secret's file (src/auth/service-secret.ts). */
export const SECRET_FILE = 'quire-secret'
/** The superuser initdb creates, and the database Quire uses. */
export const SUPERUSER = 'quire'
const DATABASE = 'postgres'
/** The port only names the socket file (`.s.PGSQL.5432`); the server listens on no TCP port. */
export const SOCKET_PORT = 5432

/** The absolute cluster directory of a DATA_DIR. */
export function clusterDirOf(dataDir: string): string {
  return join(resolve(dataDir), CLUSTER_DIR)
}

/** The postgres:// URL of the embedded server of `dataDir`: its Unix socket, libpq style (`?host=/dir`). */
export function embeddedDatabaseUrl(dataDir: string): string {
  return `postgres://${SUPERUSER}@localhost/${DATABASE}?host=${encodeURIComponent(clusterDirOf(dataDir))}`
}
