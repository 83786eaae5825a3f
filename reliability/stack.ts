// The world of one run: the models (the sample ones plus reliability/models),
// the users and secrets the scanner knows, a local SMTP sink for recovery
// mails, the PostgreSQL cluster, seeded and empty stores per engine (a database of
// the throwaway cluster for `postgres`, a new DATA_DIR for the embedded `default`),
// and Quire servers started on them as child processes (bench/serve.ts, which on the
// default starts or shares the DATA_DIR's server and stops it last out, as
// `quire serve` does), logging at trace.
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startChildServer, type ChildServer } from '../bench/child-server.ts'
import { onCleanup } from '../bench/cleanup.ts'
import { log } from '../bench/report.ts'
import { BENCH_USER, generateSeedData, type SeedData } from '../bench/seed-data.ts'
import { MODELS_DIR, seedDatabase } from '../bench/seed-database.ts'
import { newDataDir } from '../bench/embedded-store.ts'
import { embeddedStore, envOf, externalStore, type Store } from '../bench/store.ts'
import { prepareCreate } from '../src/documents/prepare-document.ts'
import { USER_MODEL } from '../src/auth/users/user-model.ts'
import { loadModels } from '../src/models/load-models.ts'
import { createHttpClient, jsonOf, type HttpClient } from './http-client.ts'
import type { EngineName, ReliabilityOptions } from './options.ts'
import { embeddedControl, startSuiteCluster, type DatabaseControl, type SuiteCluster } from './pg-control.ts'
import { createSecretScanner, type SecretScanner } from './secret-scanner.ts'
import { startSmtpSink } from './smtp-sink.ts'

/** How many seeded documents of each model the fuzz may change and delete (the first ones). */
const FUZZ_SHARE = 300

export interface Account {
  email: string
  password: string
}
export interface Session {
  token: string
  refresh_token: string
  apikey: string
  user_id: string
}

export interface QuireServer extends ChildServer {
  /** A keep-alive client whose replies the secret scanner reads. */
  client: HttpClient
  /** Kills the process with SIGKILL (no clean-up of any kind). */
  kill: () => void
}

export interface Suite {
  options: ReliabilityOptions
  scanner: SecretScanner
  /** The models the servers load: the sample ones and reliability/models. */
  modelsDir: string
  admin: Account
  user: Account
  /** The seeded store of an engine (seeded on first use): admin, user, link and test documents. */
  seededStore: (engine: EngineName) => Promise<Store>
  /** A new empty store (on the default: a new DATA_DIR, its cluster made by the first server). */
  emptyStore: (engine: EngineName, name: string) => Promise<Store>
  cluster: () => Promise<SuiteCluster>
  /** Stops and starts the database server of a store: the cluster's, or the default's embedded server. */
  databaseControl: (store: Store) => Promise<DatabaseControl>
  startQuire: (name: string, store: Store, env?: Record<string, string>) => Promise<QuireServer>
  /** Another client of a server, with its own connection limit; the scanner reads its replies too. */
  clientFor: (server: QuireServer, connections: number) => HttpClient
  /** POST /login; the credentials are handed to the scanner. */
  login: (server: QuireServer, account: Account) => Promise<Session>
  /** Error-level log lines of every server (message and cause -> count), to tell 5xx causes apart. */
  serverErrors: Map<string, number>
  /** One request (method and URL) per error message above. */
  serverErrorExamples: Map<string, string>
  /** Ids of seeded test and link documents that no scenario changes, and those the fuzz may change or delete. */
  seeded: () => Promise<{ testIds: string[]; linkIds: string[]; fuzzTestIds: string[]; fuzzLinkIds: string[] }>
}

/** The sample models plus the suite's own, in one temporary directory. */
function assembleModels(): string {
  const dir = mkdtempSync(join(tmpdir(), 'quire-rel-models-'))
  onCleanup(() => rmSync(dir, { recursive: true, force: true }))
  const own = fileURLToPath(new URL('./models/', import.meta.url))
  for (const source of [MODELS_DIR, own]) {
    for (const file of readdirSync(source).filter(f => f.endsWith('.json')))
      copyFileSync(join(source, file), join(dir, file))
  }
  return dir
}

/** Every chunk to the sink (and to `copy`); `lines` gets whole lines. */
function teeOutput(
  sink: (chunk: string) => void,
  lines: (line: string) => void,
  copy?: (chunk: string) => void
): (chunk: string) => void {
  let partial = ''
  return chunk => {
    sink(chunk)
    copy?.(chunk)
    const all = (partial + chunk).split('\n')
    partial = all.pop() ?? ''
    all.forEach(lines)
  }
}

export async function createSuite(options: ReliabilityOptions): Promise<Suite> {
  const scanner = createSecretScanner()
  const secret = randomBytes(32).toString('hex')
  const admin = { email: 'admin@reliability.test', password: `admin-${randomBytes(9).toString('base64url')}` }
  const user = { ...BENCH_USER }
  scanner.add('QUIRE_SECRET', secret)
  scanner.add('the admin password', admin.password)
  scanner.add('the user password', user.password)
  const modelsDir = assembleModels()
  const smtp = await startSmtpSink(100)
  onCleanup(() => smtp.close())
  let cluster: Promise<SuiteCluster> | undefined
  let data: Promise<SeedData> | undefined
  const stores = new Map<EngineName, Promise<Store>>()
  const serverErrors = new Map<string, number>()
  // A request's error is logged before its one answered line ("GET /url 500 3 ms", plugins/request-log.ts),
  // which then names the error's example request.
  const awaitingRequest = new Map<string, string>()
  const recordErrors = (line: string): void => {
    const answered =
      /^\{"level":30,.*"reqId":"([^"]+)".*"res":\{"statusCode":\d+\}.*"msg":"((?:[^"\\]|\\.){0,200})/.exec(line)
    if (answered) {
      const key = awaitingRequest.get(answered[1])
      if (key !== undefined) serverErrorExamples.set(key, `${key} (e.g. ${answered[2].replace(/ \d+ [\d.]+ ms$/, '')})`)
      awaitingRequest.delete(answered[1])
      return
    }
    if (!line.includes('"level":50') && !line.includes('"level":60')) return
    try {
      const entry = JSON.parse(line) as { msg?: string; reqId?: string; err?: { type?: string; message?: string } }
      const key = `${entry.msg ?? ''}: ${entry.err?.type ?? ''} ${(entry.err?.message ?? '').slice(0, 160)}`
      serverErrors.set(key, (serverErrors.get(key) ?? 0) + 1)
      if (serverErrorExamples.has(key)) return
      serverErrorExamples.set(key, `${key} (e.g. request not seen)`)
      if (entry.reqId !== undefined && awaitingRequest.size < 2000) awaitingRequest.set(entry.reqId, key)
    } catch {}
  }
  const serverErrorExamples = new Map<string, string>()
  /** With RELIABILITY_SERVER_LOGS, a server's output is also appended to DIR/<name>.log. */
  const keepLog = (name: string): ((chunk: string) => void) | undefined => {
    if (!options.serverLogDir) return undefined
    mkdirSync(options.serverLogDir, { recursive: true })
    const file = join(options.serverLogDir, `${name}.log`)
    return chunk => appendFileSync(file, chunk)
  }
  const getCluster = (): Promise<SuiteCluster> =>
    (cluster ??= startSuiteCluster().then(c => {
      onCleanup(() => c.stop())
      return c
    }))
  const seedData = (): Promise<SeedData> =>
    (data ??= (async () => {
      const models = loadModels(modelsDir)
      log(`generating ${options.linkDocs} link and ${options.testDocs} test documents`)
      const seed = await generateSeedData({ test: models.get('test')!, link: models.get('link')! }, options)
      const adminDoc = await prepareCreate({
        model: USER_MODEL,
        body: { ...admin, admin: true },
        caller: { admin: true, groups: [] },
        form: false,
        bcryptRounds: 4
      })
      return { ...seed, moreUsers: [adminDoc] }
    })())

  const emptyStore = async (engine: EngineName, name: string): Promise<Store> => {
    if (engine === 'postgres') return externalStore(await (await getCluster()).createDatabase(name))
    // Registered before any server on it, so run after they have stopped: a server left running is reported and
    // stopped.
    const dir = newDataDir(`quire-rel-${name}-`)
    onCleanup(() => dir.remove(log))
    return embeddedStore(dir.dataDir)
  }

  const startQuire = async (name: string, store: Store, env: Record<string, string> = {}): Promise<QuireServer> => {
    const server = await startChildServer(
      name,
      './serve.ts',
      {
        ...envOf(store),
        MODELS_DIR: modelsDir,
        QUIRE_SECRET: secret,
        LOG_LEVEL: 'trace',
        STATEMENT_TIMEOUT_MS: String(options.statementTimeoutMs),
        BCRYPT_ROUNDS: '4',
        SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
        // Load shedding answers 503 whenever other work on a shared machine starves the process; the
        // suite measures stalls itself (health probe, latencies), so that 5xx mean what they say.
        MAX_EVENT_LOOP_DELAY_MS: '0',
        ...env
      },
      [],
      teeOutput(scanner.logSink(name), recordErrors, keepLog(name))
    )
    onCleanup(() => server.stop())
    return {
      ...server,
      client: scannedClient(server.url, 64),
      kill: () => {
        try {
          process.kill(server.pid, 'SIGKILL')
        } catch {}
      }
    }
  }

  function scannedClient(url: string, connections: number): HttpClient {
    const http = createHttpClient(url, connections)
    onCleanup(() => http.close())
    return {
      send: async (req, timeoutMs) => {
        const reply = await http.send(req, timeoutMs)
        scanner.scanReply(req, reply)
        return reply
      },
      close: http.close
    }
  }

  return {
    options,
    scanner,
    modelsDir,
    serverErrors,
    serverErrorExamples,
    admin,
    user,
    cluster: getCluster,
    databaseControl: async store =>
      store.dataDir === undefined ? await getCluster() : embeddedControl(store.dataDir, log),
    emptyStore,
    startQuire,
    clientFor: (server, connections) => scannedClient(server.url, connections),
    seededStore: engine => {
      let store = stores.get(engine)
      if (!store) {
        store = (async () => {
          const store = await emptyStore(engine, 'seeded')
          await seedDatabase(store, await seedData(), { modelsDir })
          return store
        })()
        stores.set(engine, store)
      }
      return store
    },
    seeded: async () => {
      const seed = await seedData()
      const testIds = seed.test.map(d => d._id as string)
      const linkIds = seed.link.map(d => d._id as string)
      return {
        testIds: testIds.slice(FUZZ_SHARE),
        linkIds: linkIds.slice(FUZZ_SHARE),
        fuzzTestIds: testIds.slice(0, FUZZ_SHARE),
        fuzzLinkIds: linkIds.slice(0, FUZZ_SHARE)
      }
    },
    login: async (server, account) => {
      const reply = await server.client.send({
        method: 'POST',
        path: '/login',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(account)
      })
      const body = jsonOf(reply)
      if (reply.status !== 200 || !body?.token)
        throw new Error(`login of ${account.email} answered ${reply.status} ${reply.body.slice(0, 200)}`)
      for (const kind of ['token', 'refresh_token', 'apikey'] as const)
        scanner.add(`${account.email}'s ${kind}`, body[kind], { credential: true })
      return body as Session
    }
  }
}
