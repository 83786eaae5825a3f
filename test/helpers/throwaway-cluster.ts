// Starts a throwaway PostgreSQL cluster for tests and benchmarks: the npm-shipped binaries of
// the embedded default (or PG_BIN_DIR's, to test on another PostgreSQL version, as the GitHub
// workflow does with 15), initdb in a temporary directory as the server's user, listening on a
// free loopback port, with durability off (nothing in it must outlive the run).
import { execFileSync, spawn } from 'node:child_process'
import { chownSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '../../src/free-port.ts'
import { findPostgresBinaries } from '../../src/embedded/postgres-binaries.ts'
import { asServerUser, serverUser } from '../../src/embedded/server-user.ts'
import { waitUntilReady } from '../../src/embedded/postmaster-pid.ts'

export interface PgCluster {
  /** postgres:// URL of the superuser connection to the `postgres` database. */
  url: string
  stop: () => Promise<void>
}

const READY_WITHIN_MS = 30_000

/** Initializes and starts a new cluster; `stop()` shuts it down and deletes its files. */
export async function startPgCluster(): Promise<PgCluster> {
  const user = serverUser()
  const bin = process.env.PG_BIN_DIR ?? (await findPostgresBinaries(user)).bin
  const dir = mkdtempSync(join(tmpdir(), 'quire-pg-'))
  const dataDir = join(dir, 'data')
  if (user.uid !== undefined) chownSync(dir, user.uid, user.gid!)
  execFileSync(
    join(bin, 'initdb'),
    ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'],
    { ...asServerUser(user), stdio: 'ignore' }
  )
  const port = await freePort()
  const proc = spawn(
    join(bin, 'postgres'),
    [
      '-D',
      dataDir,
      '-p',
      String(port),
      '-k',
      dir,
      '-h',
      '127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=200'
    ],
    { ...asServerUser(user), stdio: 'ignore' }
  )
  // Best effort against orphans: a process that exits without stop() takes its cluster along.
  const stopOnExit = (): void => {
    if (proc.exitCode === null) proc.kill('SIGINT')
  }
  process.once('exit', stopOnExit)
  await waitUntilReady(dataDir, READY_WITHIN_MS, () =>
    proc.exitCode !== null ? `postgres exited with code ${proc.exitCode}` : undefined
  )
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      process.off('exit', stopOnExit)
      if (proc.exitCode === null) {
        const exited = new Promise(resolve => proc.once('exit', resolve))
        proc.kill('SIGINT')
        await exited
      }
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
