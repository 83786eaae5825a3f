// Builds Quire apps for HTTP scenario tests on a real PostgreSQL server (one throwaway
// cluster per test file, test/helpers/throwaway-cluster.ts, and a fresh database per app).
// The suites that list WIDE_ENGINES run on the MongoDB engine too: on MongoDB when MONGODB_URL
// is set, and on FerretDB v1 (one server per test file, test/helpers/ferretdb.ts) when it is built.
import tap, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import postgres from 'postgres'
import { MongoClient } from 'mongodb'
import { FERRETDB_LIMITS, ferretdbBinary, startFerretDB, type FerretLimit, type FerretServer } from './ferretdb.ts'
import { buildApp } from '../../app.ts'
import { loadConfig, type Config } from '../../src/config.ts'
import { startPgCluster, type PgCluster } from './throwaway-cluster.ts'
import { prepareCreate } from '../../src/documents/prepare-document.ts'
import { USER_MODEL } from '../../src/auth/users/user-model.ts'
import { ANONYMOUS } from '../../src/auth/caller.ts'

import { chosenEngines, type EngineName } from './test-engines.ts'

export type { EngineName }

let cluster: Promise<PgCluster> | undefined
let databases = 0

/** The shared cluster of this test file, started on first use (also in a subtest) and stopped when the file ends. */
function sharedCluster(): Promise<PgCluster> {
  if (!cluster) {
    cluster = startPgCluster()
    tap.teardown(async () => {
      await (await cluster!).stop()
    })
  }
  return cluster
}

let ferret: Promise<FerretServer> | undefined

/** The FerretDB server of this test file, started on first use and stopped when the file ends. */
function sharedFerretDB(): Promise<FerretServer> {
  if (!ferret) {
    const found = ferretdbBinary()
    if ('missing' in found) throw new Error(found.missing)
    ferret = startFerretDB(found.bin)
    tap.teardown(async () => {
      await (await ferret!).stop()
    })
  }
  return ferret
}

/** A MongoDB URL naming a new database `name` instead of the URL's own. */
const withDatabase = (url: string, name: string): string =>
  url.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?/, `$1/${name}`)

/** A fresh database for one app: a new database in the shared cluster (or MongoDB, FerretDB server). */
export async function databaseUrl(engine: EngineName): Promise<string> {
  const name = `quire_test_${process.pid}_${++databases}`
  if (engine === 'ferretdb') return withDatabase((await sharedFerretDB()).url, name)
  if (engine === 'mongodb') {
    const url = withDatabase(process.env.MONGODB_URL!, name)
    tap.teardown(async () => {
      const client = await MongoClient.connect(url)
      await client.db().dropDatabase()
      await client.close()
    })
    return url
  }
  const { url } = await sharedCluster()
  const admin = postgres(url, { max: 1, onnotice: () => {} })
  await admin.unsafe(`CREATE DATABASE ${name}`)
  await admin.end()
  return url.replace(/\/postgres$/, `/${name}`)
}

/**
 * The engines the HTTP scenario tests run on, each named in its test's title: PostgreSQL, or those
 * TEST_ENGINES lists (e.g. `TEST_ENGINES=ferretdb npx tap test/x.test.ts` to try a suite
 * on FerretDB; wideEngines() suites run on it anyway).
 */
export const ENGINES: EngineName[] = chosenEngines() ?? ['postgres']

/**
 * The engines of the suites chosen to run on the MongoDB engine too (CRUD, list reads, auth, bulk
 * writes, import/export, jxp-helper: on FerretDB they would double `npm test` if every suite ran):
 * PostgreSQL, then MongoDB when MONGODB_URL is set, then FerretDB when it is built. An engine that
 * cannot run here is a skipped test saying why, once per file.
 */
export function wideEngines(): EngineName[] {
  const chosen = chosenEngines()
  if (chosen) return chosen
  const engines: EngineName[] = ['postgres']
  if (process.env.MONGODB_URL) engines.push('mongodb')
  else tap.test('on MongoDB', { skip: 'set MONGODB_URL to run this suite on MongoDB as well' }, async () => {})
  const ferret = ferretdbBinary()
  if ('bin' in ferret) engines.push('ferretdb')
  else {
    console.error(`# FerretDB: this suite's MongoDB-engine run skipped: ${ferret.missing}`)
    tap.test('on FerretDB', { skip: ferret.missing }, async () => {})
  }
  return engines
}

/** Why a test that needs `feature` cannot run on `engine` (FerretDB v1's limits), or undefined. */
export function engineLacks(engine: EngineName, ...features: FerretLimit[]): string | undefined {
  if (engine !== 'ferretdb' || features.length === 0) return undefined
  const why = features.map(f => FERRETDB_LIMITS[f]).join('; ')
  console.error(`# FerretDB: skipped: ${why}`)
  return why
}

/**
 * Test apps do not shed load: a busy test machine must not turn answers into 503s
 * (test/http/service/lifecycle.test.ts tests shedding).
 */
export const QUIET_SETTINGS: Partial<Config> = { maxEventLoopDelayMs: 0 }

export interface TestApp {
  app: FastifyInstance
  /** Authorization header of an admin user created for the test. */
  admin: string
  /** Creates a (non-admin unless said) user and returns its Basic authorization header. */
  createUser: (
    email: string,
    password: string,
    fields?: Record<string, unknown>
  ) => Promise<{ auth: string; id: string }>
}

export function basicAuth(email: string, password: string): string {
  return `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`
}

/** A new app on `engine` with the sample models, closed when `t` ends. */
export async function createTestApp(t: Test, engine: EngineName, overrides: Partial<Config> = {}): Promise<TestApp> {
  const url = overrides.databaseUrl ?? (await databaseUrl(engine))
  // A database server of the test's own (DATABASE_URL set): not the embedded server of ./data.
  const config: Config = {
    ...loadConfig({ DATABASE_URL: url }),
    ...QUIET_SETTINGS,
    modelsDir: new URL('../../models', import.meta.url).pathname,
    bcryptRounds: 4,
    ...overrides
  }
  const app = await buildApp({ config })
  t.teardown(() => app.close())
  const createUser: TestApp['createUser'] = async (email, password, fields = {}) => {
    const doc = await prepareCreate({
      model: USER_MODEL,
      body: { email, password, ...fields },
      caller: { ...ANONYMOUS, admin: true },
      form: false,
      bcryptRounds: 4
    })
    await app.db.insert(USER_MODEL, doc)
    return { auth: basicAuth(email, password), id: doc._id as string }
  }
  const { auth: admin } = await createUser('admin@example.com', 'admin-password', { admin: true })
  return { app, admin, createUser }
}

/** A second app on the database of `first`, as another process would be, closed when `t` ends. */
export async function secondApp(
  t: Test,
  first: FastifyInstance,
  overrides: Partial<Config> = {}
): Promise<FastifyInstance> {
  const config: Config = {
    ...loadConfig({ DATABASE_URL: first.config.databaseUrl }),
    ...QUIET_SETTINGS,
    modelsDir: first.config.modelsDir,
    bcryptRounds: 4,
    ...overrides
  }
  const app = await buildApp({ config })
  t.teardown(() => app.close())
  return app
}
