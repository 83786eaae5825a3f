// The resident memory of a Quire server under test: its process and the Node processes below it
// (the workers, with WORKERS > 1), from /proc (Linux). The embedded default's PostgreSQL
// processes are not counted: their shared buffers fill as data is read and stay filled by design.
import { readFileSync } from 'node:fs'

function read(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return ''
  }
}

function descendants(pid: number): number[] {
  const tasks = read(`/proc/${pid}/task/${pid}/children`).split(' ').filter(Boolean).map(Number)
  return tasks.flatMap(child => [child, ...descendants(child)])
}

/** RSS in MB of `pid` and its descendant Node processes. */
export function serverRssMb(pid: number): number {
  const pids = [pid, ...descendants(pid).filter(child => read(`/proc/${child}/comm`).trim() === 'node')]
  const kb = pids.reduce((sum, p) => sum + Number(/VmRSS:\s+(\d+)/.exec(read(`/proc/${p}/status`))?.[1] ?? 0), 0)
  return Math.round(kb / 1024)
}
