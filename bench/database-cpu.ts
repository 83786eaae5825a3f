// Reads how much CPU the PostgreSQL backends serving a database (or a FerretDB process) have used,
// from /proc (Linux; the benchmark's databases run on the same machine), so the table can charge
// the database's share of each request, not only the server's.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { connectSql } from './sql-connection.ts'
import type { CpuMeter } from './load.ts'

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100

/** utime + stime of a process, in clock ticks (0 when it is gone). */
function processTicks(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return Number(fields[11]) + Number(fields[12])
  } catch {
    return 0
  }
}

export interface DatabaseCpuMeter {
  /** CPU used by the client backends of the database (connections opened meanwhile included). */
  meter: CpuMeter
  close: () => Promise<void>
}

/**
 * A meter of one database server process (FerretDB: one process serves every connection), or undefined where /proc
 * cannot be read.
 */
export function createProcessCpuMeter(pid: number): CpuMeter | undefined {
  try {
    readFileSync(`/proc/${pid}/stat`)
  } catch {
    return undefined
  }
  return async () => {
    const before = processTicks(pid)
    return async () => ((processTicks(pid) - before) * 1e6) / TICKS_PER_SECOND
  }
}

/** One meter of several (undefined ones left out): the CPU of all of them. */
export function sumOf(meters: Array<CpuMeter | undefined>): CpuMeter | undefined {
  const present = meters.filter((m): m is CpuMeter => m !== undefined)
  if (present.length === 0) return undefined
  return async () => {
    const stops = await Promise.all(present.map(meter => meter()))
    return async () => (await Promise.all(stops.map(stop => stop()))).reduce((a, b) => a + b, 0)
  }
}

/**
 * A meter for the database at `url` (the embedded default's socket URL too), or undefined where /proc cannot be read.
 */
export function createDatabaseCpuMeter(url: string): DatabaseCpuMeter | undefined {
  try {
    readFileSync('/proc/self/stat')
  } catch {
    return undefined
  }
  const sql = connectSql(url, { max: 1 })
  const backendTicks = async (): Promise<Map<number, number>> => {
    const rows = await sql`select pid from pg_stat_activity
        where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()`
    return new Map(rows.map(row => [row.pid as number, processTicks(row.pid as number)]))
  }
  return {
    meter: async () => {
      const before = await backendTicks()
      return async () => {
        let ticks = 0
        for (const [pid, now] of await backendTicks()) ticks += now - (before.get(pid) ?? 0)
        return (ticks * 1e6) / TICKS_PER_SECOND
      }
    },
    close: () => sql.end({ timeout: 5 })
  }
}
