// The engines the contract suite runs on: a throwaway PostgreSQL server,
// and MongoDB when MONGODB_URL is set or MONGOMS_SYSTEM_BINARY names an existing mongod
// (run by mongodb-memory-server as a one-member replica set; it never downloads a binary).
import { existsSync } from 'node:fs'
import type { Test } from 'tap'
import { MongoClient } from 'mongodb'
import type { Engine } from '../../src/engines/engine.ts'
import { openEngine } from '../../src/engines/open-engine.ts'
import { startPgCluster } from '../../src/embedded/throwaway-cluster.ts'

export interface EngineTarget {
  /** The engine's `kind`. */
  name: string
  title: string
  /** The database URL of a fresh, empty store, torn down when `t` ends. */
  url: (t: Test) => Promise<string>
}

/** An engine that cannot run here, and why: the suite skips it, saying so. */
export interface SkippedTarget { name: string, title: string, skip: string }

/** Opens an engine on a fresh store, with a short statement timeout; closed when `t` ends. */
export async function openTarget (t: Test, target: EngineTarget, log: (msg: string) => void): Promise<Engine> {
  const engine = await openEngine(await target.url(t), { statementTimeoutMs: 10_000, log })
  t.teardown(() => engine.close())
  return engine
}

/** MONGODB_URL with its database replaced by a new one, dropped when `t` ends. */
async function freshMongoDatabase (t: Test, url: string): Promise<string> {
  const name = `quire_contract_${process.pid}_${Date.now()}`
  const fresh = url.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?/, `$1/${name}`)
  t.teardown(async () => {
    const client = await MongoClient.connect(fresh)
    await client.db().dropDatabase()
    await client.close()
  })
  return fresh
}

async function startMemoryReplSet (t: Test, systemBinary: string): Promise<string> {
  process.env.MONGOMS_RUNTIME_DOWNLOAD = 'false'
  const { MongoMemoryReplSet } = await import('mongodb-memory-server')
  const replSet = await MongoMemoryReplSet.create({ binary: { systemBinary }, replSet: { count: 1, storageEngine: 'wiredTiger' } })
  t.teardown(() => replSet.stop())
  return replSet.getUri('quire_contract')
}

function mongoTarget (): EngineTarget | SkippedTarget {
  const url = process.env.MONGODB_URL
  const binary = process.env.MONGOMS_SYSTEM_BINARY
  if (url) return { name: 'mongodb', title: 'MongoDB', url: t => freshMongoDatabase(t, url) }
  if (binary && existsSync(binary)) return { name: 'mongodb', title: 'MongoDB', url: t => startMemoryReplSet(t, binary) }
  const why = binary ? `MONGOMS_SYSTEM_BINARY=${binary} does not exist` : 'no mongod on this machine'
  return { name: 'mongodb', title: 'MongoDB', skip: `set MONGODB_URL or MONGOMS_SYSTEM_BINARY (${why})` }
}

export function engineTargets (): Array<EngineTarget | SkippedTarget> {
  return [
    {
      name: 'postgres',
      title: 'PostgreSQL',
      url: async t => {
        const cluster = await startPgCluster()
        t.teardown(() => cluster.stop())
        return cluster.url
      }
    },
    mongoTarget()
  ]
}
