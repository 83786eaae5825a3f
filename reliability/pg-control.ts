// The suite's PostgreSQL server: a throwaway cluster (test/helpers/throwaway-cluster.ts)
// holding one database per use, which the restart scenario can stop (a fast
// shutdown, as a service manager does) and start again on the same port; and the
// same control over the embedded default's server of a DATA_DIR (embeddedControl).
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import postgres from 'postgres'
import { startPgCluster } from '../test/helpers/throwaway-cluster.ts'
import { clusterDirOf } from '../src/embedded/data-dir.ts'
import { useEmbeddedServer } from '../src/embedded/embedded-server.ts'
import { waitUntilStopped } from '../src/embedded/postmaster-pid.ts'
import { serverPid } from '../bench/embedded-store.ts'

export interface DatabaseControl {
  /** Fast shutdown of the server (clients are disconnected); resolves once it has exited. */
  stopServer: () => Promise<void>
  /** Starts the server again with the options it ran with; resolves once it accepts connections. */
  startServer: () => Promise<void>
}

export interface SuiteCluster extends DatabaseControl {
  /** Creates a database and returns its URL. */
  createDatabase: (name: string) => Promise<string>
  stop: () => Promise<void>
}

/**
 * The embedded default's server of `dataDir`, stopped as an administrator or a service manager
 * would (SIGINT to the postmaster: a fast shutdown) while Quire runs on it, and started again as
 * any `quire` command starts it (useEmbeddedServer: detached, on the same socket). Quire does not
 * start a server that stopped under it again itself: it answers 503 until one is back.
 */
export function embeddedControl(dataDir: string, log: (msg: string) => void): DatabaseControl {
  const cluster = clusterDirOf(dataDir)
  return {
    stopServer: async () => {
      const pid = serverPid(dataDir)
      if (pid === undefined) throw new Error(`no embedded PostgreSQL server runs on ${dataDir}`)
      process.kill(pid, 'SIGINT')
      if (!(await waitUntilStopped(cluster, 20_000)))
        throw new Error('the embedded PostgreSQL server did not stop within 20 s')
    },
    startServer: async () => {
      // not let go of: the Quire server on it stops it when it stops
      await useEmbeddedServer(dataDir, msg => log(`  ${msg}`))
    }
  }
}

async function waitUntil(ready: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await ready()) return
    await new Promise(resolve => setTimeout(resolve, 50))
  }
  throw new Error(`${what} within ${timeoutMs / 1000} s`)
}

async function accepts(url: string): Promise<boolean> {
  const sql = postgres(url, { max: 1, connect_timeout: 1, onnotice: () => {} })
  try {
    await sql`select 1`
    return true
  } catch {
    return false
  } finally {
    await sql.end({ timeout: 1 })
  }
}

/** The arguments postgres ran with, from postmaster.opts ("/path/postgres" "-D" "dir" ...). */
function postmasterArgs(dataDir: string): { bin: string; args: string[] } {
  const [bin, ...args] = [...readFileSync(join(dataDir, 'postmaster.opts'), 'utf8').matchAll(/"([^"]*)"|(\S+)/g)].map(
    m => m[1] ?? m[2]
  )
  return { bin, args }
}

export async function startSuiteCluster(): Promise<SuiteCluster> {
  const cluster = await startPgCluster()
  const admin = postgres(cluster.url, { max: 1, onnotice: () => {} })
  const [{ data_directory: dataDir }] = await admin<Array<{ data_directory: string }>>`show data_directory`
  await admin.end()
  let restarted: ChildProcess | undefined

  const postmasterPid = (): number => Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0])
  const stopRestarted = async (): Promise<void> => {
    if (!restarted || restarted.exitCode !== null) return
    const exited = new Promise(resolve => restarted!.once('exit', resolve))
    restarted.kill('SIGINT')
    await exited
  }

  return {
    createDatabase: async name => {
      const sql = postgres(cluster.url, { max: 1, onnotice: () => {} })
      try {
        await sql.unsafe(`CREATE DATABASE ${name}`)
      } finally {
        await sql.end()
      }
      return cluster.url.replace(/\/postgres$/, `/${name}`)
    },
    stopServer: async () => {
      const pid = postmasterPid()
      process.kill(pid, 'SIGINT')
      await waitUntil(async () => {
        try {
          process.kill(pid, 0)
          return false
        } catch {
          return true
        }
      }, 'PostgreSQL did not stop')
    },
    startServer: async () => {
      const { bin, args } = postmasterArgs(dataDir)
      const { uid, gid } = statSync(dataDir)
      restarted = spawn(bin, args, { uid, gid, stdio: 'ignore' })
      await waitUntil(() => accepts(cluster.url), 'PostgreSQL did not accept connections')
    },
    stop: async () => {
      await stopRestarted()
      await cluster.stop()
    }
  }
}
