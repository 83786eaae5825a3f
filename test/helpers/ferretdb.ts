// FerretDB v1 (a MongoDB-wire-compatible server over SQLite, written in Go) for the tests: the
// MongoDB engine runs on it when no MONGODB_URL is set. .ci/install-ferretdb builds the binary
// once from the Go module proxy; FERRETDB_BIN names it, else the cache path that script uses.
// Each server listens on a free loopback port and keeps its SQLite files in a throwaway directory.
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { MongoClient } from 'mongodb'
import { freePort } from '../../src/free-port.ts'

export const FERRETDB_VERSION = 'v1.24.2'

/**
 * What FerretDB v1 cannot do that Quire's MongoDB engine or its tests use, each with where FerretDB
 * says so (its docs' supported-commands.md and diff.md, and its source: the aggregation stages of
 * internal/handler/common/aggregations/stages are $addFields, $count, $group, $limit, $match,
 * $project, $set, $skip, $sort, $unset, $unwind and $collStats; nothing else).
 */
export const FERRETDB_LIMITS = {
  lookup: 'FerretDB v1 has no $lookup aggregation stage (supported-commands.md)',
  stages: 'FerretDB v1 has no $facet, $replaceRoot or $documents aggregation stages (supported-commands.md)',
  text: 'FerretDB v1 has no text indexes and no $text query operator (supported-commands.md, diff.md)',
  transactions:
    'FerretDB v1 has no transactions (startTransaction is ignored, commitTransaction unknown: supported-commands.md)',
  changeStreams: 'FerretDB v1 has no change streams ($changeStream is not a supported stage: supported-commands.md)'
} as const

export type FerretLimit = keyof typeof FERRETDB_LIMITS

/** The FerretDB binary, or why there is none. */
export function ferretdbBinary(): { bin: string } | { missing: string } {
  const named = process.env.FERRETDB_BIN
  if (named) return existsSync(named) ? { bin: named } : { missing: `FERRETDB_BIN=${named} does not exist` }
  let gopath: string
  try {
    gopath = execFileSync('go', ['env', 'GOPATH'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch {
    return { missing: 'no FERRETDB_BIN and no go on PATH (bash .ci/install-ferretdb builds FerretDB)' }
  }
  const bin = join(gopath, 'bin', `ferretdb-${FERRETDB_VERSION}`)
  return existsSync(bin)
    ? { bin }
    : {
        missing:
          `FerretDB is not built: no ${bin} (bash .ci/install-ferretdb builds it, about 5 minutes the first ` + 'time)'
      }
}

export interface FerretServer {
  /** mongodb:// URL of the server, naming no database. */
  url: string
  /** The server's process id (the bench meters its CPU). */
  pid: number
  stop: () => Promise<void>
}

/**
 * Starts FerretDB on a free loopback port over a new SQLite directory, or over the PostgreSQL
 * database at `postgresUrl` (FerretDB's other backend, which runs more of a filter in the
 * database); `stop()` ends it and deletes its files.
 */
export async function startFerretDB(
  bin: string,
  { postgresUrl }: { postgresUrl?: string } = {}
): Promise<FerretServer> {
  const dir = mkdtempSync(join(tmpdir(), 'quire-ferretdb-'))
  const port = await freePort()
  const backend = postgresUrl
    ? ['--handler=postgresql', `--postgresql-url=${postgresUrl}`]
    : ['--handler=sqlite', `--sqlite-url=file:${dir}/`]
  const proc = spawn(
    bin,
    [
      `--listen-addr=127.0.0.1:${port}`,
      ...backend,
      `--state-dir=${dir}`,
      '--telemetry=disable',
      '--log-level=error',
      '--debug-addr=-'
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] }
  )
  let stderr = ''
  proc.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000)
  })
  const stopOnExit = (): void => {
    if (proc.exitCode === null) proc.kill('SIGKILL')
  }
  process.once('exit', stopOnExit)
  const url = `mongodb://127.0.0.1:${port}/`
  const stop = async (): Promise<void> => {
    process.off('exit', stopOnExit)
    if (proc.exitCode === null && proc.signalCode === null) {
      const exited = new Promise(resolve => proc.once('exit', resolve))
      proc.kill('SIGTERM')
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
  }
  for (let waited = 0; ; waited += 100) {
    if (proc.exitCode !== null) {
      await stop()
      throw new Error(`FerretDB (${bin}) exited with code ${proc.exitCode}: ${stderr.trim()}`)
    }
    try {
      const client = await MongoClient.connect(url, { serverSelectionTimeoutMS: 500, connectTimeoutMS: 500 })
      await client.db('admin').command({ ping: 1 })
      await client.close()
      return { url, pid: proc.pid!, stop }
    } catch (err) {
      if (waited > 30_000) {
        await stop()
        throw new Error(`FerretDB did not answer on ${url} within 30 s: ${(err as Error).message}; ${stderr.trim()}`)
      }
    }
    await sleep(100)
  }
}
