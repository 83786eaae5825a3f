// Builds Quire apps for HTTP scenario tests on a real PostgreSQL server (one throwaway
// cluster per test file, src/embedded/throwaway-cluster.ts, and a fresh database per app).
// The engine contract suite (test/engine-contract.test.ts) also runs MongoDB when one is available.
import tap, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import postgres from 'postgres'
import { buildApp } from '../../app.ts'
import { loadConfig, type Config } from '../../src/config.ts'
import { startPgCluster, type PgCluster } from '../../src/embedded/throwaway-cluster.ts'
import { prepareCreate } from '../../src/documents/prepare-document.ts'
import { USER_MODEL } from '../../src/auth/user-model.ts'
import { ANONYMOUS } from '../../src/auth/caller.ts'

export type EngineName = 'postgres'

let cluster: Promise<PgCluster> | undefined
let databases = 0

/** The shared cluster of this test file, started on first use (also in a subtest) and stopped when the file ends. */
function sharedCluster (): Promise<PgCluster> {
  if (!cluster) {
    cluster = startPgCluster()
    tap.teardown(async () => { await (await cluster!).stop() })
  }
  return cluster
}

/** A fresh database for one app: a new database in the shared cluster. */
export async function databaseUrl (_engine: EngineName): Promise<string> {
  const { url } = await sharedCluster()
  const name = `quire_test_${process.pid}_${++databases}`
  const admin = postgres(url, { max: 1, onnotice: () => {} })
  await admin.unsafe(`CREATE DATABASE ${name}`)
  await admin.end()
  return url.replace(/\/postgres$/, `/${name}`)
}

/** The engines the HTTP scenario tests run on, each named in its test's title. */
export const ENGINES: EngineName[] = ['postgres']

/** Test apps do not shed load: a busy test machine must not turn answers into 503s (test/lifecycle.test.ts tests shedding). */
export const QUIET_SETTINGS: Partial<Config> = { maxEventLoopDelayMs: 0 }

export interface TestApp {
  app: FastifyInstance
  /** Authorization header of an admin user created for the test. */
  admin: string
  /** Creates a (non-admin unless said) user and returns its Basic authorization header. */
  createUser: (email: string, password: string, fields?: Record<string, unknown>) => Promise<{ auth: string, id: string }>
}

export function basicAuth (email: string, password: string): string {
  return `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`
}

/** A new app on `engine` with the sample models, closed when `t` ends. */
export async function createTestApp (t: Test, engine: EngineName, overrides: Partial<Config> = {}): Promise<TestApp> {
  const url = overrides.databaseUrl ?? await databaseUrl(engine)
  // A database server of the test's own (DATABASE_URL set): not the embedded server of ./data.
  const config: Config = { ...loadConfig({ DATABASE_URL: url }), ...QUIET_SETTINGS, modelsDir: new URL('../../models', import.meta.url).pathname, bcryptRounds: 4, ...overrides }
  const app = await buildApp({ config })
  t.teardown(() => app.close())
  const createUser: TestApp['createUser'] = async (email, password, fields = {}) => {
    const doc = await prepareCreate({ model: USER_MODEL, body: { email, password, ...fields }, caller: { ...ANONYMOUS, admin: true }, form: false, bcryptRounds: 4 })
    await app.db.insert(USER_MODEL, doc)
    return { auth: basicAuth(email, password), id: doc._id as string }
  }
  const { auth: admin } = await createUser('admin@example.com', 'admin-password', { admin: true })
  return { app, admin, createUser }
}
