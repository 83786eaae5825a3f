// A new DATA_DIR for the embedded default (what `npm start` uses with DATABASE_URL unset: a
// PostgreSQL server of its own on a Unix socket in DATA_DIR/postgres, src/embedded/), in a
// temporary directory, and what makes sure no server is left running on it.
//
// As root the server runs as `postgres`, which must reach DATA_DIR: mkdtemp makes a 0700
// directory, so it is opened to traversal (0755). The Quire processes start, share and stop the
// server themselves (the last one out stops it); `stopLeftServer` is the safety net for what a
// run left behind (a Quire killed with SIGKILL leaves it running by design), and reports it.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { clusterDirOf } from '../src/embedded/data-dir.ts'
import { runningServer, waitUntilStopped } from '../src/embedded/postmaster-pid.ts'

export interface EmbeddedDataDir {
  /** DATA_DIR (not created yet: the first Quire command creates it and its cluster). */
  dataDir: string
  /** Stops a server left running on it (reported through `log`), then deletes the directory. */
  remove: (log: (msg: string) => void) => Promise<void>
}

/** A new DATA_DIR under a temporary directory that the server's user can reach. */
export function newDataDir(prefix: string): EmbeddedDataDir {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  chmodSync(dir, 0o755)
  const dataDir = join(dir, 'data')
  // Best effort against orphans when the run ends without its clean-up (an uncaught error).
  const stopOnExit = (): void => {
    signalServer(dataDir)
  }
  process.once('exit', stopOnExit)
  return {
    dataDir,
    remove: async log => {
      process.off('exit', stopOnExit)
      await stopLeftServer(dataDir, log)
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** The pid of the server running on DATA_DIR, if one is. */
export function serverPid(dataDir: string): number | undefined {
  return runningServer(clusterDirOf(dataDir))?.pid
}

function signalServer(dataDir: string): number | undefined {
  const pid = serverPid(dataDir)
  if (pid !== undefined)
    try {
      process.kill(pid, 'SIGINT')
    } catch {}
  return pid
}

/** Fast shutdown of the server still running on DATA_DIR, if any; true when there was one. */
export async function stopLeftServer(dataDir: string, log: (msg: string) => void): Promise<boolean> {
  const pid = signalServer(dataDir)
  if (pid === undefined) return false
  log(`the embedded PostgreSQL server (pid ${pid}) was still running on ${dataDir}: stopping it`)
  if (!(await waitUntilStopped(clusterDirOf(dataDir), 30_000))) log(`  it did not stop within 30 s (pid ${pid})`)
  return true
}
