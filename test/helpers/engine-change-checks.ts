// The engine contract's checks of matchDocuments and the change log (Engine.changes),
// run by test/storage/engine-contract.test.ts on every engine after the other checks.
import type { Test } from 'tap'
import type { Doc } from '../../src/storage/engine.ts'
import type { StoredChange } from '../../src/storage/change-log.ts'
import type { Filter } from '../../src/query/types.ts'
import { CREDENTIAL_MODEL } from '../../src/auth/credentials/credential-model.ts'
import { newId } from '../../src/ids.ts'
import type { UncheckedEngine } from './unchecked-engine.ts'
import { ITEM, LIVE, makeDoc } from './engine-fixtures.ts'

interface Ctx {
  engine: UncheckedEngine
}

const MATCH_FILTERS: Filter[] = [
  { _deleted: false },
  { n: { $gte: 2 } },
  { labels: 'y' },
  { 'meta.a': 1 },
  { body: { $regex: '^apple', $options: 'i' } },
  { when: { $gt: '2024-01-01T00:00:00.000Z' } },
  { $or: [{ n: 1 }, { name: 'echo' }] },
  { labels: { $exists: false } },
  { _id: LIVE[1]._id },
  { _id: { $in: [LIVE[0]._id, LIVE[3]._id] } },
  { name: { $nin: ['alpha', 'bravo'] } }
]

export async function checkMatchDocuments(t: Test, { engine }: Ctx): Promise<void> {
  const stored = JSON.parse(
    (await engine.find(ITEM, { filter: {}, sort: [], limit: 100, skip: 0, count: false, populate: [] })).data
  ) as Doc[]
  const raw = await Promise.all(stored.map(async doc => (await engine.findRaw(ITEM, { _id: doc._id })) as Doc))
  const unstored = makeDoc({ name: 'zulu', n: 9, labels: ['y'] })
  const docs = [...raw, unstored, { ...raw[0], n: 99 }]
  const matches = await engine.matchDocuments(ITEM, docs, MATCH_FILTERS)
  for (const [f, filter] of MATCH_FILTERS.entries()) {
    const found = new Set(
      (
        JSON.parse(
          (await engine.find(ITEM, { filter, sort: [], limit: 100, skip: 0, count: false, populate: [] })).data
        ) as Doc[]
      ).map(d => d._id)
    )
    t.strictSame(
      matches[f].slice(0, raw.length),
      raw.map(doc => found.has(doc._id)),
      `${JSON.stringify(filter)}: the documents find returns`
    )
  }
  t.strictSame(
    MATCH_FILTERS.map((_, f) => matches[f][raw.length]),
    [true, true, true, false, false, false, false, false, false, false, true],
    'a document not stored is matched on its content'
  )
  t.strictSame(
    [raw[0].n, matches[1][0], matches[6][0], matches[1][raw.length + 1], matches[6][raw.length + 1]],
    [1, false, true, true, false],
    'the same _id twice: each copy on its own content'
  )
  t.strictSame(
    await engine.matchDocuments(ITEM, [], MATCH_FILTERS),
    MATCH_FILTERS.map(() => []),
    'no documents'
  )
}

/** Follows the log until `count` changes arrived (or 20 s passed). */
async function collect(engine: UncheckedEngine, count: number, write: () => Promise<void>): Promise<StoredChange[]> {
  const seen: StoredChange[] = []
  let arrived = (): void => {}
  const stop = await engine.changes.follow(async changes => {
    seen.push(...changes)
    if (seen.length >= count) arrived()
  })
  try {
    await write()
    await Promise.race([
      new Promise<void>(resolve => {
        arrived = resolve
        if (seen.length >= count) resolve()
      }),
      new Promise(resolve => setTimeout(resolve, 20_000))
    ])
  } finally {
    await stop()
  }
  return seen
}

export async function checkChangeLog(t: Test, { engine }: Ctx): Promise<void> {
  const { changes } = engine
  const start = await changes.head()
  const doc = makeDoc({ name: 'kilo', n: 1 })
  const seen = await collect(engine, 6, async () => {
    await engine.insert(ITEM, doc)
    await engine.updateOne(ITEM, { _id: doc._id }, { n: 2, updatedAt: '2024-08-01T00:00:00.000Z' })
    await engine.updateOne(ITEM, { _id: doc._id }, { _deleted: true })
    await engine.updateOne(ITEM, { _id: doc._id }, { _deleted: false })
    await engine.bulkWrite(ITEM, [
      {
        kind: 'update',
        filter: { _id: doc._id },
        update: [['$set', 'n', 3]],
        many: false,
        now: '2024-08-02T00:00:00.000Z',
        check: () => {}
      },
      { kind: 'delete', filter: { _id: doc._id }, many: false, now: '2024-08-03T00:00:00.000Z' }
    ])
  })
  t.strictSame(
    seen.map(c => [c.model, c.op, c.docId]),
    [
      ['ct_item', 'create'],
      ['ct_item', 'update'],
      ['ct_item', 'soft_delete'],
      ['ct_item', 'restore'],
      ['ct_item', 'update'],
      ['ct_item', 'soft_delete']
    ].map(([m, op]) => [m, op, doc._id]),
    'follow: every write, in order, kinds told apart'
  )
  t.strictSame(
    [seen[1].doc?.n, seen[4].doc?.n, seen[0].doc?.secret],
    [2, 3, undefined],
    'each with the document after the write'
  )
  t.ok(
    seen.every(c => c.actor === null && !Number.isNaN(Date.parse(c.at))),
    'no actor outside a request; a time'
  )
  t.ok(
    seen.every((c, i) => i === 0 || changes.compare(seen[i - 1].pos, c.pos) < 0),
    'positions increase'
  )
  const read = await changes.readAfter(start, 100)
  t.strictSame(
    read === 'gone' ? read : read.map(c => c.pos),
    seen.map(c => c.pos),
    'readAfter: the same changes from the position before them'
  )
  t.strictSame(
    await changes.readAfter(seen[3].pos, 1).then(r => (r === 'gone' ? r : r.map(c => c.op))),
    ['update'],
    'readAfter: after a position, at most `limit`'
  )
  t.equal(await changes.readAfter('not a position', 10), 'gone', 'readAfter: a position this log never gave is gone')
  t.ok(changes.compare(await changes.head(), seen[5].pos) >= 0, 'head: at or after the last change')
}

export async function checkInternalChanges(t: Test, { engine }: Ctx): Promise<void> {
  await engine.syncModels([CREDENTIAL_MODEL])
  const userId = newId()
  const seen = await collect(engine, 1, async () => {
    await engine.insert(CREDENTIAL_MODEL, {
      _id: newId(),
      user_id: userId,
      token: 'digest',
      apikey: `key-${userId}`,
      __v: 0
    })
  })
  t.strictSame(
    seen.map(c => [c.model, c.op, c.doc]),
    [['_credential', 'create', { user_id: userId }]],
    'an internal model: only whose the document is'
  )
}

export async function checkPrune(t: Test, { engine }: Ctx): Promise<void> {
  const { changes } = engine
  const first = await changes.readAfter('0', 1)
  const pruned = await changes.prune({ seconds: 3600, entries: 2 })
  if (engine.kind === 'mongodb') {
    t.equal(pruned, 0, 'MongoDB: the oplog is the retention window, nothing to prune')
    return
  }
  t.ok(pruned > 0, 'older entries pruned')
  t.equal(await changes.readAfter('0', 10), 'gone', 'reading from before the pruned entries is gone')
  const head = await changes.head()
  const last = await changes.readAfter(String(BigInt(head) - 2n), 10)
  t.strictSame(last === 'gone' ? last : last.length, 2, 'the newest entries stay')
  t.not(first, 'gone', 'before pruning the first entry was there')
}
