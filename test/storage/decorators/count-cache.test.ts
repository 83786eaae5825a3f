// The list-count cache: a write through this process shows at once, a write by
// another process (straight to the engine) shows once the time to live passes. On PostgreSQL.
import t from 'tap'
import postgres from 'postgres'
import { setTimeout as sleep } from 'node:timers/promises'
import { openEngine } from '../../../src/storage/open-engine.ts'
import { withCountCache } from '../../../src/storage/decorators/count-cache.ts'
import { parseModelFile } from '../../../src/models/load-models.ts'
import { newSystemFields } from '../../../src/documents/prepare-document.ts'
import { ANONYMOUS } from '../../../src/auth/caller.ts'
import type { FindQuery } from '../../../src/storage/engine.ts'
import { authorized } from '../../../src/permissions/authorized.ts'
import { runInRequestScope } from '../../../src/runtime/request-scope.ts'
import { databaseUrl } from '../../helpers/test-app.ts'

const model = parseModelFile(JSON.stringify({ name: 'counted', fields: { n: { type: 'number' } } }), 'test')
const query = authorized<FindQuery>({
  filter: authorized({ _deleted: false }),
  sort: [],
  limit: 1,
  skip: 0,
  count: true,
  populate: []
})
const doc = (n: number) => ({ n, ...newSystemFields(ANONYMOUS) })

t.test('counts are reused until a write or the time to live', async t => {
  const raw = await openEngine(await databaseUrl('postgres'), { statementTimeoutMs: 5000 })
  t.teardown(() => raw.close())
  await raw.syncModels([model])
  let clock = 0
  const cached = withCountCache(raw, 2000, () => clock)

  await cached.insert(model, doc(1))
  t.equal((await cached.find(model, query)).count, 1)
  await cached.insert(model, doc(2))
  t.equal((await cached.find(model, query)).count, 2, 'a write through the cache shows at once')

  await raw.insert(model, doc(3))
  t.equal((await cached.find(model, query)).count, 2, "another process's write is not seen within the time to live")
  t.equal((await cached.find(model, query)).returned, 1, 'the page itself is always read')
  clock += 2001
  t.equal((await cached.find(model, query)).count, 3, 'and is seen after it')

  t.equal(
    (await cached.find(model, { ...query, filter: authorized({ n: 1 }) })).count,
    1,
    'each filter has its own count'
  )
  t.equal(withCountCache(raw, 0), raw, 'a time to live of 0 turns the cache off')
})

t.test('"no search" and an empty search are counted apart', async t => {
  const searchable = parseModelFile(
    JSON.stringify({ name: 'searched', fields: { s: { type: 'string' } }, fulltext: { fields: ['s'] } }),
    'test'
  )
  const raw = await openEngine(await databaseUrl('postgres'), { statementTimeoutMs: 5000 })
  t.teardown(() => raw.close())
  await raw.syncModels([searchable])
  const cached = withCountCache(raw, 60_000)
  await cached.insert(searchable, { s: 'some words', ...newSystemFields(ANONYMOUS) })
  t.equal((await cached.find(searchable, { ...query, search: '' })).count, 0, 'an empty search matches nothing')
  const plain = await cached.find(searchable, query)
  t.strictSame([plain.count, plain.returned], [1, 1], 'a plain list right after it counts its own rows')
})

t.test('a shared count is cancelled only when every reader waiting for it left', async t => {
  const texts = parseModelFile(JSON.stringify({ name: 'texts', fields: { s: { type: 'string' } } }), 'test')
  // One expensive slot and no quick lane: the reads wait behind whatever holds the slot.
  const url = await databaseUrl('postgres')
  const raw = await openEngine(url, {
    statementTimeoutMs: 60_000,
    expensiveQuerySlots: 1,
    expensiveQuerySlotsPerClient: 1,
    quickStatementMs: 0
  })
  t.teardown(() => raw.close())
  const observer = postgres(url, { max: 1, onnotice: () => {} })
  t.teardown(() => observer.end())
  const running = async (): Promise<number> =>
    (
      await observer`SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = 'quire' AND state = 'active'`
    )[0].n as number
  await raw.syncModels([texts])
  await raw.insert(texts, { s: 'a'.repeat(20_000), ...newSystemFields(ANONYMOUS) })
  const reader = (client: string) => ({ client, controller: new AbortController() })
  const inScope = <T>(r: ReturnType<typeof reader>, work: () => Promise<T>): Promise<T> =>
    runInRequestScope({ client: r.client, signal: r.controller.signal }, work)
  /** A slow count holds the one expensive slot, so that the reads after it wait behind it; resolves once it runs. */
  const holdSlot = async (): Promise<Promise<number>> => {
    let settled = false
    const count = inScope(reader('busy'), () => raw.count(texts, authorized({ s: { $regex: '(?=a*x)' } }))).finally(
      () => {
        settled = true
      }
    )
    while (!settled && (await running()) === 0) await sleep(10)
    t.notOk(settled, 'the slow count holds the slot while the reads come')
    return count
  }

  const cached = withCountCache(raw, 2000)
  let slow = await holdSlot()
  const [first, second] = [reader('first'), reader('second')]
  const firstRead = inScope(first, () => cached.find(texts, query)).catch(err => err)
  const secondRead = inScope(second, () => cached.find(texts, query))
  first.controller.abort(new Error('first reader left'))
  t.equal(await slow, 0)
  t.equal((await secondRead).count, 1, 'the second reader gets the count the first one started')
  await firstRead

  const again = withCountCache(raw, 2000)
  slow = await holdSlot()
  const [third, fourth] = [reader('third'), reader('fourth')]
  const thirdRead = inScope(third, () => again.find(texts, query))
  const fourthRead = inScope(fourth, () => again.find(texts, query))
  third.controller.abort(new Error('third reader left'))
  fourth.controller.abort(new Error('fourth reader left'))
  await t.rejects(
    thirdRead,
    { message: 'fourth reader left' },
    'once the last reader left, the shared statement is dropped'
  )
  await t.rejects(fourthRead, { message: 'fourth reader left' })
  await slow
})
