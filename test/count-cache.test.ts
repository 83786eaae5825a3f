// The list-count cache: a write through this process shows at once, a write by
// another process (straight to the engine) shows once the time to live passes.
import t from 'tap'
import { openEngine } from '../src/engines/open-engine.ts'
import { withCountCache } from '../src/engines/count-cache.ts'
import { parseModelFile } from '../src/models/load-models.ts'
import { newSystemFields } from '../src/documents/prepare-document.ts'
import { ANONYMOUS } from '../src/auth/caller.ts'
import type { FindQuery } from '../src/engines/engine.ts'
import { authorized } from '../src/permissions/authorized.ts'
import { runInRequestScope } from '../src/engines/request-scope.ts'

const model = parseModelFile(JSON.stringify({ name: 'counted', fields: { n: { type: 'number' } } }), 'test')
const query = authorized<FindQuery>({ filter: authorized({ _deleted: false }), sort: [], limit: 1, skip: 0, count: true, populate: [] })
const doc = (n: number) => ({ n, ...newSystemFields(ANONYMOUS) })

t.test('counts are reused until a write or the time to live', async t => {
  const raw = await openEngine('pglite://memory', { statementTimeoutMs: 5000 })
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

  t.equal((await cached.find(model, { ...query, filter: authorized({ n: 1 }) })).count, 1, 'each filter has its own count')
  t.equal(withCountCache(raw, 0), raw, 'a time to live of 0 turns the cache off')
})

t.test('"no search" and an empty search are counted apart', async t => {
  const searchable = parseModelFile(JSON.stringify({ name: 'searched', fields: { s: { type: 'string' } }, fulltext: { fields: ['s'] } }), 'test')
  const raw = await openEngine('pglite://memory', { statementTimeoutMs: 5000 })
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
  const raw = await openEngine('pglite://memory', { statementTimeoutMs: 60_000 })
  t.teardown(() => raw.close())
  await raw.syncModels([texts])
  await raw.insert(texts, { s: 'a'.repeat(20_000), ...newSystemFields(ANONYMOUS) })
  const reader = (client: string) => ({ client, controller: new AbortController() })
  const inScope = <T>(r: ReturnType<typeof reader>, work: () => Promise<T>): Promise<T> => runInRequestScope({ client: r.client, signal: r.controller.signal }, work)
  /** A slow count holds PGlite's one expensive slot, so that the reads after it wait behind it. */
  const holdPglite = (): Promise<number> => inScope(reader('busy'), () => raw.count(texts, authorized({ s: { $regex: '(?=a*x)' } })))

  const cached = withCountCache(raw, 2000)
  let slow = holdPglite()
  const [first, second] = [reader('first'), reader('second')]
  const firstRead = inScope(first, () => cached.find(texts, query)).catch(err => err)
  const secondRead = inScope(second, () => cached.find(texts, query))
  first.controller.abort(new Error('first reader left'))
  t.equal(await slow, 0)
  t.equal((await secondRead).count, 1, 'the second reader gets the count the first one started')
  await firstRead

  const again = withCountCache(raw, 2000)
  slow = holdPglite()
  const [third, fourth] = [reader('third'), reader('fourth')]
  const thirdRead = inScope(third, () => again.find(texts, query))
  const fourthRead = inScope(fourth, () => again.find(texts, query))
  third.controller.abort(new Error('third reader left'))
  fourth.controller.abort(new Error('fourth reader left'))
  await t.rejects(thirdRead, { message: 'fourth reader left' }, 'once the last reader left, the shared statement is dropped')
  await t.rejects(fourthRead, { message: 'fourth reader left' })
  await slow
})
