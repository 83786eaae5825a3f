// What a PostgreSQL cluster's postmaster.pid says: the server's process id and its status
// ("starting", "ready", "stopping"), and whether that process still lives. Both the embedded
// server and the throwaway clusters of tests and benchmarks wait on it.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

export interface PidFile {
  pid: number
  status: string
}

const POLL_MS = 20

/** postmaster.pid's process id and status line, when the file is there. */
export function readPidFile(cluster: string): PidFile | undefined {
  try {
    const lines = readFileSync(join(cluster, 'postmaster.pid'), 'utf8').split('\n')
    const pid = Number(lines[0])
    return Number.isInteger(pid) && pid > 0 ? { pid, status: (lines[7] ?? '').trim() } : undefined
  } catch {
    return undefined
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' // alive, another user's (root runs the server as postgres)
  }
}

/**
 * What the process `pid` runs, where the system says (Linux's /proc): a pid file left by a
 * server that died with its machine or container may name a process that is not PostgreSQL.
 */
function programOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim()
  } catch {
    return undefined
  }
}

/** The pid file names a process that certainly is not a PostgreSQL server (dead, or another program). */
export function isStale(file: PidFile): boolean {
  if (!isAlive(file.pid)) return true
  const program = programOf(file.pid)
  return program !== undefined && program !== 'postgres'
}

/** The live server's pid file, or undefined when no server runs on the cluster. */
export function runningServer(cluster: string): PidFile | undefined {
  const file = readPidFile(cluster)
  return file !== undefined && !isStale(file) ? file : undefined
}

/**
 * Waits until a server on `cluster` reports itself ready. `failed` is asked between looks: a
 * reason to give up (the server we started exited), or undefined to go on. Throws the reason,
 * or a time-out after `timeoutMs`.
 */
export async function waitUntilReady(
  cluster: string,
  timeoutMs: number,
  failed: () => string | undefined
): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (performance.now() < deadline) {
    if (runningServer(cluster)?.status === 'ready') return
    const reason = failed()
    if (reason !== undefined) throw new Error(reason)
    await sleep(POLL_MS)
  }
  throw new Error(`not ready within ${timeoutMs / 1000} s`)
}

/** Waits until no server runs on `cluster`; false when one still does after `timeoutMs`. */
export async function waitUntilStopped(cluster: string, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs
  while (runningServer(cluster) !== undefined) {
    if (performance.now() > deadline) return false
    await sleep(POLL_MS)
  }
  return true
}
