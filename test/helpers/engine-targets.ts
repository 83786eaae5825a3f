// The engines the contract suite runs on: a throwaway PostgreSQL server; MongoDB when MONGODB_URL
// is set or MONGOMS_SYSTEM_BINARY names an existing mongod (run by mongodb-memory-server as a
// one-member replica set; it never downloads a binary); and the MongoDB engine on FerretDB v1
// (test/helpers/ferretdb.ts) when its binary is built, with what FerretDB lacks skipped and named.
import { existsSync } from 'node:fs'
import type { Test } from 'tap'
import { MongoClient } from 'mongodb'
import type { Engine } from '../../src/storage/engine.ts'
import { openEngine } from '../../src/storage/open-engine.ts'
import { startPgCluster } from './throwaway-cluster.ts'
import { FERRETDB_LIMITS, ferretdbBinary, startFerretDB, type FerretLimit } from './ferretdb.ts'
import { chosenEngines } from './test-engines.ts'

export interface EngineTarget {
  /** The engine's `kind`. */
  name: string
  title: string
  /** The database URL of a fresh, empty store, torn down when `t` ends. */
  url: (t: Test) => Promise<string>
  /** What this server cannot do, each with the reason its tests are skipped (FerretDB's limits). */
  lacks?: Partial<Record<FerretLimit, string>>
}

/** The skip reason of a test that needs `feature` on `target`, or undefined when it can run. */
export function lacking(target: EngineTarget, ...features: FerretLimit[]): string | undefined {
  const reasons = features.flatMap(f => target.lacks?.[f] ?? [])
  return reasons.length ? reasons.join('; ') : undefined
}

/** An engine that cannot run here, and why: the suite skips it, saying so. */
export interface SkippedTarget {
  name: string
  title: string
  skip: string
}

/** Opens an engine on a fresh store, with a short statement timeout; closed when `t` ends. */
export async function openTarget(t: Test, target: EngineTarget, log: (msg: string) => void): Promise<Engine> {
  const engine = await openEngine(await target.url(t), { statementTimeoutMs: 10_000, log })
  t.teardown(() => engine.close())
  return engine
}

/** MONGODB_URL with its database replaced by a new one, dropped when `t` ends. */
async function freshMongoDatabase(t: Test, url: string): Promise<string> {
  const name = `quire_contract_${process.pid}_${Date.now()}`
  const fresh = url.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?/, `$1/${name}`)
  t.teardown(async () => {
    const client = await MongoClient.connect(fresh)
    await client.db().dropDatabase()
    await client.close()
  })
  return fresh
}

async function startMemoryReplSet(t: Test, systemBinary: string): Promise<string> {
  process.env.MONGOMS_RUNTIME_DOWNLOAD = 'false'
  const { MongoMemoryReplSet } = await import('mongodb-memory-server')
  const replSet = await MongoMemoryReplSet.create({
    binary: { systemBinary },
    replSet: { count: 1, storageEngine: 'wiredTiger' }
  })
  t.teardown(() => replSet.stop())
  return replSet.getUri('quire_contract')
}

function mongoTarget(): EngineTarget | SkippedTarget {
  const url = process.env.MONGODB_URL
  const binary = process.env.MONGOMS_SYSTEM_BINARY
  if (url) return { name: 'mongodb', title: 'MongoDB', url: t => freshMongoDatabase(t, url) }
  if (binary && existsSync(binary))
    return { name: 'mongodb', title: 'MongoDB', url: t => startMemoryReplSet(t, binary) }
  const why = binary ? `MONGOMS_SYSTEM_BINARY=${binary} does not exist` : 'no mongod on this machine'
  return { name: 'mongodb', title: 'MongoDB', skip: `set MONGODB_URL or MONGOMS_SYSTEM_BINARY (${why})` }
}

/** The MongoDB engine on a FerretDB server of its own (SQLite in a throwaway directory), or why not. */
function ferretTarget(): EngineTarget | SkippedTarget {
  const title = 'FerretDB'
  const found = ferretdbBinary()
  if ('missing' in found) return { name: 'mongodb', title, skip: found.missing }
  return {
    name: 'mongodb',
    title,
    lacks: FERRETDB_LIMITS,
    url: async t => {
      const server = await startFerretDB(found.bin)
      t.teardown(() => server.stop())
      return `${server.url}quire_contract`
    }
  }
}

const postgresTarget = (): EngineTarget => ({
  name: 'postgres',
  title: 'PostgreSQL',
  url: async t => {
    const cluster = await startPgCluster()
    t.teardown(() => cluster.stop())
    return cluster.url
  }
})

/** Every engine the contract runs on, or those TEST_ENGINES names. */
export function engineTargets(): Array<EngineTarget | SkippedTarget> {
  const targets = { postgres: postgresTarget, mongodb: mongoTarget, ferretdb: ferretTarget }
  const chosen = chosenEngines() ?? (Object.keys(targets) as Array<keyof typeof targets>)
  return chosen.map(name => targets[name]())
}
