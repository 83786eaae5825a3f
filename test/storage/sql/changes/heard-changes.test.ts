// What the SQL change log tells the response cache (src/cache/log-check.ts) on PostgreSQL: `heard`
// covers every change announced before it was called (a round trip on the listening connection,
// which PostgreSQL answers after the notifications before it), in another process's listener too;
// while the listening connection is down it vouches for nothing, and once it is back it covers
// what was announced meanwhile (notices lost while it was down). Failed before: no `heard`.
import t from 'tap'
import { openPostgres } from '../../../../src/storage/postgres/postgres-client.ts'
import { createSqlEngine } from '../../../../src/storage/sql/sql-engine.ts'
import { resolveModel } from '../../../../src/models/load-models.ts'
import type { StoredChange } from '../../../../src/storage/change-log.ts'
import { startPgCluster } from '../../../helpers/throwaway-cluster.ts'
import { startTcpProxy } from '../../../helpers/tcp-proxy.ts'

const MODEL = resolveModel({ name: 'heard', fields: { n: { type: 'number' } } })
const ROUNDS = 20
const idOf = (n: number): string => n.toString(16).padStart(24, '0')

t.test('heard: every announced change, and nothing while the listener is down (PostgreSQL)', async t => {
  const cluster = await startPgCluster()
  t.teardown(() => cluster.stop())
  const proxy = await startTcpProxy(cluster.url)
  t.teardown(() => proxy.close())
  const writer = createSqlEngine(openPostgres(cluster.url, 5000))
  t.teardown(() => writer.close())
  await writer.syncModels([MODEL])
  // The reader's connections, its listener's among them, go through the proxy.
  const reader = createSqlEngine(openPostgres(proxy.url, 5000))
  t.teardown(() => reader.close())
  const log = reader.changes
  const heard = log.heard
  if (heard === undefined) throw new Error('the SQL change log has no heard()')
  const delivered: StoredChange[] = []
  const stop = await log.follow(async changes => {
    delivered.push(...changes)
  })
  t.teardown(stop)
  const heardNow = async (): Promise<string | undefined> => await heard().catch(() => undefined)
  /** Polls until the listener vouches again (it reads the head once it listens). */
  const vouched = async (): Promise<string> => {
    for (let i = 0; i < 400; i++) {
      const pos = await heardNow()
      if (pos !== undefined) return pos
      await new Promise(resolve => setTimeout(resolve, 50))
    }
    throw new Error('the listener never vouched again')
  }
  await vouched()

  // Each insert is one change, numbered after the last: its position is known without asking
  // the database (a read would give the notification time to arrive anyway).
  const base = BigInt(await writer.changes.head())
  let n = 0
  const writeAndAnnounce = async (): Promise<string> => {
    await writer.insert(MODEL, { _id: idOf(++n), n })
    await writer.changes.announce?.()
    return String(base + BigInt(n))
  }

  let covered = 0
  for (let i = 0; i < ROUNDS; i++) {
    const pos = await writeAndAnnounce()
    const told = await heardNow()
    if (told !== undefined && log.compare(told, pos) >= 0) covered++
  }
  t.equal(covered, ROUNDS, 'each change announced by another client is covered by the next heard()')
  t.equal(await writer.changes.head(), String(base + BigInt(n)), 'one position per insert')

  await proxy.setMode('refuse')
  t.equal(await heardNow(), undefined, 'the listening connection down: nothing vouched for')
  const whileDown = await writeAndAnnounce()
  t.equal(await heardNow(), undefined, 'still down')
  await proxy.setMode('forward')
  const back = await vouched()
  t.ok(log.compare(back, whileDown) >= 0, 'back: covers what was announced while it was down')
  for (let i = 0; i < 400 && !delivered.some(c => c.docId === idOf(n)); i++)
    await new Promise(resolve => setTimeout(resolve, 50))
  t.ok(
    delivered.some(c => c.docId === idOf(n)),
    'and the follower delivers it (from the log: its notice was lost)'
  )
})
