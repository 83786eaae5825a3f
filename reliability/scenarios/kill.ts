// Kill -9: many concurrent writers create documents and update them in turn;
// Quire is killed with SIGKILL at a random moment and started again on the same
// store; every write that was acknowledged (2xx) must be there with the content
// it was acknowledged with (or with the one write per writer still in flight).
// Repeated RELIABILITY_KILL_ROUNDS times per engine. On the embedded default the
// kill leaves the DATA_DIR's PostgreSQL server running (it is detached from Quire,
// by design): the restarted Quire must find it and use it (the same postmaster), and
// stop it when it is itself stopped gracefully.
import { log } from '../../bench/report.ts'
import { serverPid } from '../../bench/embedded-store.ts'
import type { Store } from '../../bench/store.ts'
import { createRandom } from '../../bench/seed-data.ts'
import { jsonOf, type HttpClient } from '../http-client.ts'
import type { EngineName } from '../options.ts'
import { check, resultOf, type ScenarioResult } from '../report.ts'
import type { Suite } from '../stack.ts'

interface Content {
  bar: string
  yack: { s: string; n: number }
}
interface Tracked {
  id: string
  acked: Content
  inFlight?: Content
}

const contentOf = (writer: number, version: number): Content => ({
  bar: `w${writer}-v${version}`,
  yack: { s: `version ${version}`, n: version }
})
const same = (doc: any, c: Content | undefined): boolean =>
  !!c && doc?.bar === c.bar && doc?.yack?.s === c.yack.s && doc?.yack?.n === c.yack.n

/**
 * One writer: creates a document, then updates it again and again until stopped; what was acknowledged is in `docs`.
 */
async function write(
  client: HttpClient,
  apikey: string,
  round: number,
  writer: number,
  docs: Tracked[],
  running: () => boolean
): Promise<void> {
  const headers = { apikey, 'content-type': 'application/json' }
  const created = await client.send(
    {
      method: 'POST',
      path: '/api/test',
      headers,
      body: JSON.stringify({ foo: `kill-${round}-${writer}`, ...contentOf(writer, 0) })
    },
    60_000
  )
  const id = jsonOf(created)?.data?._id
  if (created.status !== 200 || !id) return
  const doc: Tracked = { id, acked: contentOf(writer, 0) }
  docs.push(doc)
  for (let version = 1; running(); version++) {
    doc.inFlight = contentOf(writer, version)
    const reply = await client.send(
      { method: 'PUT', path: `/api/test/${id}`, headers, body: JSON.stringify(doc.inFlight) },
      60_000
    )
    if (reply.status !== 200) return
    doc.acked = doc.inFlight
    doc.inFlight = undefined
  }
}

/** The stored documents with these ids, read back through the restarted server. */
async function readBack(client: HttpClient, apikey: string, ids: string[]): Promise<Map<string, any>> {
  const found = new Map<string, any>()
  for (let i = 0; i < ids.length; i += 1000) {
    const reply = await client.send(
      {
        method: 'POST',
        path: '/query/test?limit=1000',
        headers: { apikey, 'content-type': 'application/json' },
        body: JSON.stringify({ query: { _id: { $in: ids.slice(i, i + 1000) } } })
      },
      60_000
    )
    if (reply.status !== 200) throw new Error(`reading back answered ${reply.status} ${reply.body.slice(0, 200)}`)
    for (const doc of jsonOf(reply).data) found.set(doc._id, doc)
  }
  return found
}

/**
 * The embedded server through a round (the default only): alive after the kill, the same one after the restart, gone
 * after the graceful stop.
 */
interface EmbeddedFate {
  pid?: number
  survivedKill: boolean
  reused: boolean
  stoppedAtEnd: boolean
}
interface Round {
  acked: number
  lost: string[]
  wrong: string[]
  killAfterMs: number
  restartMs: number
  embedded?: EmbeddedFate
}

async function runRound(
  suite: Suite,
  engine: EngineName,
  store: Store,
  apikey: string,
  round: number,
  random: () => number
): Promise<Round> {
  const server = await suite.startQuire(`kill-${engine}-${round}`, store)
  const embeddedPid = store.dataDir === undefined ? undefined : serverPid(store.dataDir)
  const writers = suite.clientFor(server, suite.options.writers)
  const docs: Tracked[] = []
  let running = true
  const loops = Array.from({ length: suite.options.writers }, (_, w) =>
    write(writers, apikey, round, w, docs, () => running)
  )
  const killAfterMs = Math.round(1500 + random() * 3500)
  await new Promise(resolve => setTimeout(resolve, killAfterMs))
  server.kill()
  await server.exited
  const survivedKill = embeddedPid !== undefined && serverPid(store.dataDir!) === embeddedPid
  running = false
  await Promise.all(loops)
  writers.close()
  const restarting = Date.now()
  const again = await suite.startQuire(`kill-${engine}-${round}-restarted`, store)
  const restartMs = Date.now() - restarting
  const reused = embeddedPid !== undefined && serverPid(store.dataDir!) === embeddedPid
  const stored = await readBack(
    again.client,
    apikey,
    docs.map(d => d.id)
  )
  await again.stop()
  const embedded =
    store.dataDir === undefined
      ? undefined
      : { pid: embeddedPid, survivedKill, reused, stoppedAtEnd: serverPid(store.dataDir) === undefined }
  const lost = docs.filter(d => !stored.has(d.id)).map(d => `${d.id} (acknowledged ${d.acked.bar}) is missing`)
  const wrong = docs
    .filter(d => stored.has(d.id) && !same(stored.get(d.id), d.acked) && !same(stored.get(d.id), d.inFlight))
    .map(d => `${d.id}: acknowledged ${d.acked.bar}, stored ${stored.get(d.id)?.bar}`)
  const acked = docs.reduce((n, d) => n + 1 + d.acked.yack.n, 0)
  const fate =
    embedded === undefined
      ? ''
      : `; embedded server ` +
        `pid ${embedded.pid ?? 'none'} ` +
        `${embedded.survivedKill ? 'kept running through the kill' : 'DID NOT survive the kill'}, ` +
        `${embedded.reused ? 'used by the restarted Quire' : 'NOT the one the restarted Quire used'}, ` +
        `${embedded.stoppedAtEnd ? 'stopped with it' : 'STILL RUNNING after its graceful stop'}`
  log(
    `kill ${engine} round ${round}: killed after ${killAfterMs} ms, ${acked} acknowledged writes ` +
      `on ${docs.length} documents, ${lost.length} lost, ${wrong.length} wrong; restart took ${restartMs} ` +
      `ms${fate}`
  )
  return { acked, lost, wrong, killAfterMs, restartMs, embedded }
}

/** The first admin of an empty store, through POST /setup, and its API key. */
async function setUp(suite: Suite, engine: EngineName, store: Store): Promise<string> {
  const server = await suite.startQuire(`kill-${engine}-setup`, store)
  const setup = await server.client.send({
    method: 'POST',
    path: '/setup',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(suite.admin)
  })
  if (setup.status !== 200) throw new Error(`POST /setup answered ${setup.status} ${setup.body.slice(0, 200)}`)
  const { apikey } = await suite.login(server, suite.admin)
  await server.stop()
  return apikey
}

export async function runKill(suite: Suite, engine: EngineName): Promise<ScenarioResult> {
  const started = Date.now()
  const store = await suite.emptyStore(engine, 'kill')
  const apikey = await setUp(suite, engine, store)
  const random = createRandom(suite.options.seed)
  const rounds: Round[] = []
  for (let r = 1; r <= suite.options.killRounds; r++)
    rounds.push(await runRound(suite, engine, store, apikey, r, random))
  const lost = rounds.flatMap(r => r.lost)
  const wrong = rounds.flatMap(r => r.wrong)
  const acked = rounds.reduce((n, r) => n + r.acked, 0)
  const fates = rounds.flatMap(r => r.embedded ?? [])
  const kept = fates.filter(f => f.survivedKill && f.reused).length
  const stopped = fates.filter(f => f.stoppedAtEnd).length
  const embeddedChecks =
    fates.length === 0
      ? []
      : [
          check('embedded server kept and reused', kept === rounds.length, `${kept}/${rounds.length}`),
          check('stopped by the last Quire', stopped === rounds.length, `${stopped}/${rounds.length}`)
        ]
  return resultOf(
    'kill',
    engine,
    started,
    [
      check('rounds', rounds.length >= suite.options.killRounds, rounds.length),
      check('writers', true, suite.options.writers),
      check(
        'acknowledged writes',
        rounds.every(r => r.acked > 0),
        acked
      ),
      check('lost', lost.length === 0, lost.length),
      check('wrong content', wrong.length === 0, wrong.length),
      ...embeddedChecks,
      check('restart max', true, `${Math.max(...rounds.map(r => r.restartMs))} ms`)
    ],
    {
      rounds: rounds.length,
      writers: suite.options.writers,
      acknowledgedWrites: acked,
      lost: lost.length,
      wrongContent: wrong.length,
      killAfterMs: rounds.map(r => r.killAfterMs).join(' '),
      restartMs: rounds.map(r => r.restartMs).join(' ')
    },
    [...lost, ...wrong]
  )
}
