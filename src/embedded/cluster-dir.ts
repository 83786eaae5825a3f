// The embedded PostgreSQL cluster's place in DATA_DIR: `DATA_DIR/postgres`, its Unix socket
// inside it (reachable only by the server's user and root: the directory is 0700), and how a
// new one is made. DATA_DIR must be new, empty, or Quire's own; a directory left by the
// previous embedded engine (PGlite) or holding something else is refused with what to do.
import { execFileSync } from 'node:child_process'
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { StartupError } from '../startup-error.ts'
import { makeDirectory } from '../make-directory.ts'
import { CLUSTER_DIR, SECRET_FILE, SOCKET_PORT, SUPERUSER, clusterDirOf } from './data-dir.ts'
import type { PostgresBinaries } from './postgres-binaries.ts'
import { asServerUser, canReach, type ServerUser } from './server-user.ts'

/** The longest Unix socket path the operating systems take (sun_path less its terminator). */
const MAX_SOCKET_PATH = 103

/**
 * Settings for a small machine, written into the new cluster's postgresql.conf: the socket in the
 * cluster directory and no TCP listener; fsync and synchronous commit stay on (PostgreSQL's
 * defaults: an acknowledged write survives a crash of the machine); JIT off (Quire's short jsonb
 * statements spent more compiling than running); the server log keeps start-up failures and
 * crashes only (a client's failed statement is Quire's to log, and must not fill the disk).
 */
const SETTINGS: Record<string, string> = {
  listen_addresses: "''",
  unix_socket_directories: "'.'",
  unix_socket_permissions: '0700',
  max_connections: '200',
  shared_buffers: "'128MB'",
  jit: 'off',
  log_min_messages: 'fatal',
  log_destination: "'stderr'",
  logging_collector: 'off'
}

/** The major version of PostgreSQL that made a cluster (its PG_VERSION file). */
function clusterVersion(dir: string): string | undefined {
  const file = join(dir, 'PG_VERSION')
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined
}

/** Refuses a DATA_DIR that cannot hold the cluster: too long a path for the socket, PGlite's, or someone else's. */
function checkDataDir(dataDir: string, cluster: string, user: ServerUser): void {
  const socket = join(cluster, `.s.PGSQL.${SOCKET_PORT}`)
  if (socket.length > MAX_SOCKET_PATH) {
    throw new StartupError(
      `DATA_DIR ${dataDir} is too long a path for the database server's Unix socket (${socket.length} ` +
        `characters, at most ${MAX_SOCKET_PATH}): choose a shorter DATA_DIR`
    )
  }
  if (existsSync(join(dataDir, 'PG_VERSION'))) {
    throw new StartupError(
      `DATA_DIR ${dataDir} holds a database of Quire's previous embedded engine (PGlite), which this ` +
        `version no longer reads: with the previous version run \`quire export MODEL > MODEL.ndjson\` for ` +
        `each model (users too), then with this version \`quire import MODEL MODEL.ndjson\` into a new ` +
        `DATA_DIR (CHANGELOG.md, 0.2.0)`
    )
  }
  const strangers = readdirSync(dataDir).filter(
    name => name !== CLUSTER_DIR && name !== SECRET_FILE && !name.startsWith(`${CLUSTER_DIR}.init-`)
  )
  if (!existsSync(cluster) && strangers.length > 0) {
    throw new StartupError(
      `DATA_DIR ${dataDir} is not empty and holds no Quire database ` +
        `(${strangers.slice(0, 3).join(', ')}${strangers.length > 3 ? ', ...' : ''}): choose a new or empty ` +
        `directory`
    )
  }
  if (!canReach(user, dataDir)) {
    throw new StartupError(
      `the database server runs as user ${user.name} (PostgreSQL refuses root), who cannot reach ` +
        `DATA_DIR ${dataDir}: choose a DATA_DIR that user can reach (e.g. /var/lib/quire), make its parent ` +
        `directories searchable (chmod o+x), or run Quire as an unprivileged user`
    )
  }
}

/** Refuses a cluster directory that is not a cluster of these binaries' major version. */
function checkCluster(cluster: string, binaries: PostgresBinaries): void {
  const version = clusterVersion(cluster)
  const major = binaries.version.split('.')[0]
  if (version === undefined) {
    throw new StartupError(
      `${cluster} is not a PostgreSQL cluster (no PG_VERSION): move it away, or choose another DATA_DIR`
    )
  }
  if (version !== major) {
    throw new StartupError(
      `${cluster} was made by PostgreSQL ${version}, and the embedded server is PostgreSQL ${major}: ` +
        `export the data with the Quire version that made it (\`quire export\`) and import it into a new ` +
        `DATA_DIR, or upgrade the cluster with pg_upgrade`
    )
  }
}

/** The line of a failed initdb that says why (its first error; it goes on to say what it cleaned up). */
function initdbReason(err: unknown): string {
  const lines = String((err as { stderr?: Buffer }).stderr ?? (err as Error).message)
    .trim()
    .split('\n')
    .filter(Boolean)
  const reason = lines.find(line => /error|fatal|could not|no space/i.test(line)) ?? lines.at(-1) ?? 'failed'
  return reason.replace(/^initdb: (error: )?/, '')
}

/**
 * Runs initdb into a fresh directory beside the cluster's place, then moves it there (a concurrent start keeps the
 * first).
 */
function initCluster(cluster: string, binaries: PostgresBinaries, user: ServerUser, log: (msg: string) => void): void {
  const started = performance.now()
  const partial = `${cluster}.init-${process.pid}`
  rmSync(partial, { recursive: true, force: true })
  mkdirSync(partial, { mode: 0o700 })
  if (user.uid !== undefined) chownSync(partial, user.uid, user.gid!)
  try {
    execFileSync(
      join(binaries.bin, 'initdb'),
      ['-D', partial, '-U', SUPERUSER, '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-instructions'],
      { ...asServerUser(user), stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_ALL: 'C' } }
    )
    const settings = Object.entries(SETTINGS)
      .map(([name, value]) => `${name} = ${value}`)
      .join('\n')
    writeFileSync(
      join(partial, 'postgresql.conf'),
      `\n# Quire's embedded server (src/embedded/cluster-dir.ts)\n${settings}\n`,
      { flag: 'a' }
    )
  } catch (err) {
    rmSync(partial, { recursive: true, force: true })
    throw new StartupError(`cannot create the database in ${cluster}: initdb: ${initdbReason(err)}`)
  }
  try {
    renameSync(partial, cluster)
  } catch {
    rmSync(partial, { recursive: true, force: true }) // another process made it first
  }
  log(
    `created a PostgreSQL ${binaries.version.split('.')[0]} database in ${cluster} ` +
      `(${Math.round(performance.now() - started)} ms)`
  )
}

/** Makes sure DATA_DIR holds a usable cluster, creating it when DATA_DIR is new or empty; returns its directory. */
export function prepareCluster(
  dataDir: string,
  binaries: PostgresBinaries,
  user: ServerUser,
  log: (msg: string) => void
): string {
  const dir = resolve(dataDir)
  makeDirectory(dir)
  const cluster = clusterDirOf(dir)
  checkDataDir(dir, cluster, user)
  if (existsSync(cluster) && readdirSync(cluster).length === 0) rmSync(cluster, { recursive: true })
  if (!existsSync(cluster)) initCluster(cluster, binaries, user, log)
  checkCluster(cluster, binaries)
  return cluster
}
