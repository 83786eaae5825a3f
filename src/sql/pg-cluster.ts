// Starts a throwaway PostgreSQL cluster from the installed server binaries, for
// tests and benchmarks: initdb in a temp dir (as the `postgres` user when running
// as root, since initdb refuses root), listening on loopback only.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, chownSync } from 'node:fs'
import { freePort } from '../free-port.ts'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'

export interface PgCluster {
  /** postgres:// URL of the superuser connection to the `postgres` database. */
  url: string
  stop: () => Promise<void>
}

/** Directory holding initdb/postgres, or undefined when no server is installed. */
export function findPgBinDir (): string | undefined {
  if (process.env.PG_BIN_DIR) return process.env.PG_BIN_DIR
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root).filter(v => existsSync(join(root, v, 'bin', 'initdb')))
  versions.sort((a, b) => Number(b) - Number(a))
  return versions[0] ? join(root, versions[0], 'bin') : undefined
}

function lookupPostgresUser (): { uid: number, gid: number } {
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim())
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim())
  return { uid, gid }
}

async function waitReady (bin: string, port: number, socketDir: string, proc: ChildProcess): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (proc.exitCode !== null) throw new Error(`postgres exited with code ${proc.exitCode}`)
    try {
      execFileSync(join(bin, 'pg_isready'), ['-h', socketDir, '-p', String(port), '-q'])
      return
    } catch { await new Promise(resolve => setTimeout(resolve, 50)) }
  }
  throw new Error('postgres did not become ready in 10 s')
}

/** Initializes and starts a new cluster; `stop()` shuts it down and deletes its files. */
export async function startPgCluster (): Promise<PgCluster> {
  const bin = findPgBinDir()
  if (!bin) throw new Error('No PostgreSQL server binaries found (install the postgresql package or set PG_BIN_DIR)')
  const dir = mkdtempSync(join(tmpdir(), 'quire-pg-'))
  const dataDir = join(dir, 'data')
  const asRoot = userInfo().uid === 0
  const owner = asRoot ? lookupPostgresUser() : undefined
  if (owner) chownSync(dir, owner.uid, owner.gid)
  const spawnOpts = owner ? { uid: owner.uid, gid: owner.gid } : {}
  execFileSync(join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'],
    { ...spawnOpts, stdio: 'ignore' })
  const port = await freePort()
  const proc = spawn(join(bin, 'postgres'), ['-D', dataDir, '-p', String(port), '-k', dir, '-h', '127.0.0.1',
    '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200'],
  { ...spawnOpts, stdio: 'ignore' })
  // Best effort against orphans: a process that exits without stop() takes its cluster along.
  const stopOnExit = (): void => { if (proc.exitCode === null) proc.kill('SIGINT') }
  process.once('exit', stopOnExit)
  await waitReady(bin, port, dir, proc)
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
