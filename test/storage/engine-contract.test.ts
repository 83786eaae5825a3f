// The Engine contract (src/storage/engine.ts), one conformance suite run on every engine:
// a real PostgreSQL server (a throwaway cluster), and MongoDB when one is available. Every
// engine stores the same documents and must give the same answers.
import t, { type Test } from 'tap'
import type { Doc, UpdateTerms } from '../../src/storage/engine.ts'
import { QuireError } from '../../src/errors.ts'
import { newId } from '../../src/ids.ts'
import { engineTargets, lacking, openTarget, type EngineTarget } from '../helpers/engine-targets.ts'
import type { FerretLimit } from '../helpers/ferretdb.ts'
import { uncheckedEngine, type PlainQuery, type UncheckedEngine } from '../helpers/unchecked-engine.ts'
import {
  checkChangeLog,
  checkInternalChanges,
  checkMatchDocuments,
  checkPrune
} from '../helpers/engine-change-checks.ts'
import {
  EVOLVE_V1,
  EVOLVE_V2,
  ITEM,
  ITEMS,
  LIVE,
  MODELS,
  TAG,
  TAGS,
  makeDoc,
  omit,
  populateOf
} from '../helpers/engine-fixtures.ts'

interface Ctx {
  engine: UncheckedEngine
  logs: string[]
  target: EngineTarget
}
type Check = (t: Test, ctx: Ctx) => Promise<void>

const parse = (text: string | null): Doc | null => (text === null ? null : (JSON.parse(text) as Doc))
const docsOf = (data: string): Doc[] => JSON.parse(data) as Doc[]
const idsOf = (data: string): unknown[] => docsOf(data).map(d => d._id)
const public_ = (doc: Doc): Doc => omit(doc, 'secret', 'pin')
const query = (over: Partial<PlainQuery> = {}): PlainQuery => ({
  filter: { _deleted: false },
  sort: [],
  limit: 100,
  skip: 0,
  count: false,
  populate: [],
  ...over
})

const checkSync: Check = async (t, { engine, logs }) => {
  await engine.syncModels(MODELS)
  t.ok(
    logs.some(line => line.includes('building index')),
    'the first run builds the indexes'
  )
  const before = logs.length
  await engine.syncModels(MODELS)
  t.strictSame(logs.slice(before), [], 'a second run with the same models builds nothing')
}

const checkInsert: Check = async (t, { engine }) => {
  for (const doc of Object.values(TAGS)) await engine.insert(TAG, doc)
  for (const doc of Object.values(ITEMS))
    t.strictSame(
      parse(await engine.insert(ITEM, doc)),
      public_(doc),
      `${doc.name as string}: returned without passwords`
    )
  await t.rejects(
    engine.insert(ITEM, makeDoc({ name: 'alpha' })),
    { code: 'DUPLICATE_KEY' },
    'a unique index violation is DUPLICATE_KEY'
  )
  await t.rejects(
    engine.insert(ITEM, { ...ITEMS.echo, name: 'echo2' }),
    { code: 'DUPLICATE_KEY' },
    'so is a repeated _id'
  )
}

const checkRead: Check = async (t, { engine }) => {
  const alpha = ITEMS.alpha._id
  t.strictSame(
    parse(await engine.findOne(ITEM, { _id: alpha, _deleted: false })),
    public_(ITEMS.alpha),
    'findOne: without passwords'
  )
  t.equal(
    await engine.findOne(ITEM, { _id: ITEMS.delta._id, _deleted: false }),
    null,
    'findOne: null when nothing matches'
  )
  t.strictSame(
    parse(await engine.findOne(ITEM, { _id: alpha }, { fields: ['name', 'meta.a', 'secret'] })),
    { _id: alpha, id: alpha, name: 'alpha', meta: { a: 1 } },
    'findOne fields: those plus _id and id, never a password'
  )
  const populated = parse(await engine.findOne(ITEM, { _id: alpha }, { populate: [populateOf('main_tag_id')] }))
  t.strictSame(populated?.main_tag, public_(TAGS.red), 'findOne populate')
  t.strictSame(await engine.findRaw(ITEM, { _id: alpha }), ITEMS.alpha, 'findRaw: the stored document, passwords kept')
  t.equal(await engine.findRaw(ITEM, { _id: newId() }), null, 'findRaw: null when nothing matches')
}

const checkFind: Check = async (t, { engine }) => {
  const { alpha, bravo, charlie, echo } = ITEMS
  const all = await engine.find(ITEM, query())
  t.strictSame(docsOf(all.data), LIVE.map(public_), 'no sort: _id order, without passwords')
  t.strictSame([all.returned, all.count], [4, undefined], 'returned; no count unless asked')
  t.strictSame(
    idsOf((await engine.find(ITEM, query({ sort: [['n', -1]] }))).data),
    [echo, charlie, bravo, alpha].map(d => d._id),
    'sort, ties broken by _id in the same direction'
  )
  const page = await engine.find(ITEM, query({ sort: [['n', 1]], limit: 2, skip: 1, count: true }))
  t.strictSame(
    [idsOf(page.data), page.returned, page.count],
    [[bravo._id, charlie._id], 2, 4],
    'limit, skip and the exact count'
  )
  const past = await engine.find(ITEM, query({ skip: 10, count: true }))
  t.strictSame([past.data, past.returned, past.count], ['[]', 0, 4], 'a page past the end still counts')
  t.strictSame(
    idsOf((await engine.find(ITEM, query({ filter: { n: { $gte: 2 }, _deleted: false } }))).data),
    [bravo, charlie, echo].map(d => d._id),
    'filter'
  )
  t.strictSame(
    idsOf((await engine.find(ITEM, query({ filter: { labels: 'y' } }))).data),
    [alpha._id, bravo._id],
    'equality matches array elements'
  )
  const dated = docsOf((await engine.find(ITEM, query({ filter: { when: { $gt: '2024-01-01T00:00:00.000Z' } } }))).data)
  t.strictSame(
    dated.map(d => d.when),
    [alpha.when],
    'dates compare and come back as stored'
  )
  const slim = docsOf((await engine.find(ITEM, query({ fields: ['name', 'secret'], limit: 1 }))).data)
  t.strictSame(slim, [{ _id: alpha._id, id: alpha._id, name: 'alpha' }], 'fields')
}

const checkPopulate: Check = async (t, { engine }) => {
  const result = await engine.find(ITEM, query({ populate: [populateOf('main_tag_id'), populateOf('tag_ids')] }))
  const byName = Object.fromEntries(docsOf(result.data).map(d => [d.name, d]))
  t.strictSame(byName.alpha.main_tag, public_(TAGS.red), 'single: the linked document, without passwords')
  t.strictSame(
    byName.alpha.tag,
    [public_(TAGS.green), public_(TAGS.red)],
    'many: in the order of the ids, soft-deleted ones left out'
  )
  t.strictSame(byName.alpha.tag_ids, ITEMS.alpha.tag_ids, 'the link field stays')
  t.strictSame([byName.bravo.main_tag, byName.bravo.tag], [null, []], 'a link to a soft-deleted document: null / []')
  t.strictSame([byName.charlie.main_tag, byName.charlie.tag], [null, []], 'no link: null / []')
  const slim = docsOf(
    (
      await engine.find(
        ITEM,
        query({ fields: ['name'], limit: 1, populate: [populateOf('tag_ids', ['label', 'pin'])] })
      )
    ).data
  )
  t.strictSame(
    Object.keys(slim[0]).sort(),
    ['_id', 'id', 'name', 'tag'],
    'populated links come with a fields projection'
  )
  t.strictSame(
    (slim[0].tag as Doc[]).map(tag => omit(tag, 'id')),
    [
      { _id: TAGS.green._id, label: 'green' },
      { _id: TAGS.red._id, label: 'red' }
    ],
    'spec.fields: only those fields of the linked documents (plus _id), never a password'
  )
}

const checkSearch: Check = async (t, { engine }) => {
  const found = await engine.find(ITEM, query({ search: 'apple', count: true }))
  const docs = docsOf(found.data)
  t.strictSame(docs.map(d => d.name).sort(), ['alpha', 'bravo', 'echo'], 'search matches live documents only')
  t.equal(docs[0].name, 'bravo', 'the best match first')
  t.ok(
    docs.every(d => typeof d.score === 'number'),
    'each document has a score'
  )
  t.ok(
    docs.every((d, i) => i === 0 || (docs[i - 1].score as number) >= (d.score as number)),
    'sorted by score'
  )
  t.ok(
    docs.every(d => !('secret' in d)),
    'without passwords'
  )
  t.equal(found.count, 3, 'count of a search')
  const filtered = docsOf(
    (await engine.find(ITEM, query({ search: 'apples', filter: { _deleted: false, n: { $gt: 1 } } }))).data
  )
  t.strictSame(filtered.map(d => d.name).sort(), ['bravo', 'echo'], 'search with a filter, stemmed')
}

const checkCounts: Check = async (t, { engine }) => {
  t.equal(await engine.count(ITEM, { _deleted: false }), 4, 'count')
  t.equal(await engine.count(ITEM, {}), 5, 'count, soft-deleted included when the filter says so')
  t.equal(await engine.count(ITEM, { labels: 'x', _deleted: false }), 1, 'count with an array condition')
  const planned = await engine.planCount(ITEM, { _deleted: false })
  if (engine.kind === 'mongodb') t.equal(planned, 4, 'planCount: MongoDB has no estimate, the exact count')
  else t.ok(Number.isInteger(planned) && planned >= 0, `planCount: the planner's estimate, a whole number (${planned})`)
  t.ok(
    await settled(
      () => engine.estimateCount(ITEM),
      n => n >= 5
    ),
    'estimateCount: the stored documents, soft-deleted ones included'
  )
}

/**
 * Whether `read` satisfies `ok` within 20 s. Statistics are allowed to lag: a PostgreSQL server
 * publishes a backend's row counts up to about 10 s after its writes.
 */
async function settled(read: () => Promise<number>, ok: (n: number) => boolean): Promise<boolean> {
  for (let waited = 0; waited < 20_000; waited += 250) {
    if (ok(await read())) return true
    await new Promise(resolve => setTimeout(resolve, 250))
  }
  return false
}

const checkAggregate: Check = async (t, { engine }) => {
  const sorted = JSON.parse(
    await engine.aggregate(ITEM, [
      { $match: { n: { $gte: 2 } } },
      { $sort: { n: -1, name: 1 } },
      { $project: { _id: 0, name: 1 } }
    ])
  )
  t.strictSame(sorted, [{ name: 'echo' }, { name: 'bravo' }, { name: 'charlie' }], 'base filter first')
  const total = JSON.parse(await engine.aggregate(ITEM, [{ $group: { _id: null, total: { $sum: '$n' } } }]))
  t.strictSame(total, [{ _id: null, total: 10 }], '$group')
}

const checkAggregateRoot: Check = async (t, { engine }) => {
  const whole = JSON.parse(await engine.aggregate(ITEM, [{ $replaceRoot: { newRoot: { doc: '$$ROOT' } } }])) as Array<{
    doc: Doc
  }>
  t.strictSame(
    [whole.length, whole.filter(row => 'secret' in row.doc).length],
    [4, 0],
    'password fields invisible, even to $$ROOT'
  )
}

const checkAggregateLookup: Check = async (t, { engine }) => {
  const joined = JSON.parse(
    await engine.aggregate(ITEM, [
      { $match: { name: 'alpha' } },
      { $lookup: { from: TAG.name, localField: 'tag_ids', foreignField: '_id', as: 'tags' } },
      { $project: { _id: 0, tags: 1 } }
    ])
  ) as Array<{ tags: Doc[] }>
  t.strictSame(joined[0].tags.map(tag => tag.label).sort(), ['green', 'red'], '$lookup obeys the lookup filter')
  t.ok(
    joined[0].tags.every(tag => !('pin' in tag)),
    '$lookup: password fields invisible'
  )
  const self = JSON.parse(
    await engine.aggregate(ITEM, [
      { $limit: 1 },
      { $lookup: { from: ITEM.name, localField: '_deleted', foreignField: '_deleted', as: 'all' } }
    ])
  ) as Array<{ all: Doc[] }>
  t.strictSame(
    [self[0].all.length, self[0].all.filter(doc => 'secret' in doc).length],
    [4, 0],
    'a $lookup of the source model itself: live documents, password fields invisible'
  )
}

/** Where the server lacks a feature, asking for it is a clear 501, never a server error (run where it is lacking). */
const checkRefusals: Check = async (t, { engine, target }) => {
  const refused = { code: 'NOT_SUPPORTED_BY_STORAGE', status: 501 }
  if (lacking(target, 'text'))
    await t.rejects(engine.find(ITEM, query({ search: 'apple' })), refused, `search: ${refused.code}`)
  if (lacking(target, 'lookup')) {
    await t.rejects(
      engine.aggregate(ITEM, [{ $lookup: { from: TAG.name, localField: 'tag_ids', foreignField: '_id', as: 'tags' } }]),
      refused,
      `$lookup: ${refused.code}`
    )
  }
  if (lacking(target, 'stages')) {
    await t.rejects(
      engine.aggregate(ITEM, [{ $replaceRoot: { newRoot: { doc: '$$ROOT' } } }]),
      refused,
      `$replaceRoot: ${refused.code}`
    )
    await t.rejects(engine.matchDocuments(ITEM, [ITEMS.alpha], [{ n: 1 }]), refused, `matchDocuments: ${refused.code}`)
  }
  if (lacking(target, 'changeStreams')) {
    await t.rejects(
      engine.changes.head(),
      { code: 'CHANGES_UNAVAILABLE', status: 503 },
      'the change log: CHANGES_UNAVAILABLE'
    )
  }
}

const checkExport: Check = async (t, { engine }) => {
  const batches: string[][] = []
  for await (const batch of engine.exportAll(ITEM, 2)) batches.push(batch)
  t.strictSame(
    batches.map(b => b.length),
    [2, 2, 1],
    'in batches'
  )
  t.strictSame(
    batches.flat().map(text => JSON.parse(text)),
    Object.values(ITEMS),
    'every document in _id order, soft-deleted ones and passwords included'
  )
}

const checkSnapshot: Check = async (t, { engine, target }) => {
  const read = await engine.readSnapshot(async snapshot => {
    const docs: string[] = []
    for await (const batch of snapshot.exportAll(ITEM, 2)) docs.push(...batch)
    return { consistent: snapshot.consistent, docs }
  })
  t.strictSame(
    read.docs.map(text => JSON.parse(text)),
    Object.values(ITEMS),
    'every document, as exportAll reads them'
  )
  if (target.name === 'postgres')
    t.equal(read.consistent, true, 'of one moment (test/commands/backup-restore.test.ts writes meanwhile)')
  else t.type(read.consistent, 'boolean', 'of one moment where the server has snapshot reads')
}

const checkUpdate: Check = async (t, { engine }) => {
  const { charlie } = ITEMS
  const updatedAt = '2024-06-01T00:00:00.000Z'
  const first = parse(
    await engine.updateOne(ITEM, { _id: charlie._id, _deleted: false }, { n: 7, meta: { c: 3 }, updatedAt })
  )
  t.strictSame(
    first,
    { ...public_(charlie), n: 7, meta: { c: 3 }, updatedAt, __v: 1 },
    'merges the top level, increments __v, no passwords'
  )
  const second = parse(await engine.updateOne(ITEM, { _id: charlie._id }, { labels: ['z'], updatedAt }))
  t.strictSame([second?.__v, second?.n, second?.labels], [2, 7, ['z']], 'again: __v 2, earlier changes kept')
  t.equal((await engine.findRaw(ITEM, { _id: charlie._id }))?.secret, charlie.secret, 'the password stays stored')
  t.equal(await engine.updateOne(ITEM, { _id: newId() }, { n: 1, updatedAt }), null, 'null when nothing matched')
  t.equal(
    await engine.updateOne(ITEM, { _id: ITEMS.delta._id, _deleted: false }, { n: 1, updatedAt }),
    null,
    'null when the filter excludes it'
  )
  await t.rejects(
    engine.updateOne(ITEM, { _id: charlie._id }, { name: 'alpha', updatedAt }),
    { code: 'DUPLICATE_KEY' },
    'unique violation: DUPLICATE_KEY'
  )
}

const checkInsertMany: Check = async (t, { engine }) => {
  const docs = [makeDoc({ name: 'im1', n: 1 }), makeDoc({ name: 'im2', n: 2 })]
  t.equal(await engine.insertMany(ITEM, docs), 2, 'returns how many were inserted')
  t.equal(await engine.insertMany(ITEM, []), 0, 'an empty batch')
  t.strictSame(await engine.findRaw(ITEM, { _id: docs[1]._id }), docs[1], 'stored as given')
  const clash = [makeDoc({ name: 'im3' }), makeDoc({ name: 'im1' })]
  await t.rejects(engine.insertMany(ITEM, clash), { code: 'DUPLICATE_KEY' }, 'a unique violation: DUPLICATE_KEY')
  t.equal(await engine.findRaw(ITEM, { _id: clash[0]._id }), null, 'and nothing of that batch is stored')
}

const NOW = '2024-07-01T00:00:00.000Z'
const accept = (): void => {}

const checkBulkWrite: Check = async (t, { engine }) => {
  const fresh = makeDoc({ name: 'foxtrot', n: 10, labels: [] })
  const result = await engine.bulkWrite(ITEM, [
    { kind: 'insert', doc: fresh },
    {
      kind: 'update',
      filter: { name: 'foxtrot' },
      update: [
        ['$inc', 'n', 1],
        ['$push', 'labels', 'new']
      ],
      many: false,
      now: NOW,
      check: accept
    },
    {
      kind: 'update',
      filter: { name: { $in: ['im1', 'im2'] } },
      update: [['$set', 'n', 2]],
      many: true,
      now: NOW,
      check: accept
    },
    { kind: 'replace', filter: { name: 'im1' }, replacement: { name: 'im1', body: 'replaced' }, now: NOW },
    { kind: 'delete', filter: { name: 'im2' }, many: false, now: NOW }
  ])
  t.strictSame(
    result,
    { nInserted: 1, nMatched: 4, nModified: 3, nUpserted: 0, nDeleted: 1, upsertedIds: [] },
    'the counts'
  )
  const foxtrot = await engine.findRaw(ITEM, { _id: fresh._id })
  t.strictSame(
    foxtrot,
    { ...fresh, n: 11, labels: ['new'], __v: 1, updatedAt: NOW, _updated_by_id: null },
    'an update sees the insert before it; __v and updatedAt bumped, _updated_by_id set (null: no request, ' +
      'no acting user)'
  )
  const im1 = await engine.findRaw(ITEM, { name: 'im1' })
  t.strictSame(
    omit(im1!, '_id', 'id', 'createdAt', '_owner_id'),
    { name: 'im1', body: 'replaced', _deleted: false, updatedAt: NOW, __v: 2, _updated_by_id: null },
    'replace keeps the system fields'
  )
  const im2 = await engine.findRaw(ITEM, { name: 'im2' })
  t.strictSame(
    [im2?._deleted, im2?.__v, im2?.updatedAt],
    [true, 1, NOW],
    'an unchanged document is not bumped; delete is soft'
  )
  const same = await engine.bulkWrite(ITEM, [
    {
      kind: 'replace',
      filter: { name: 'foxtrot' },
      replacement: omit(
        foxtrot!,
        '_id',
        'id',
        '_deleted',
        '_owner_id',
        'createdAt',
        'updatedAt',
        '__v',
        '_updated_by_id'
      ),
      now: NOW
    }
  ])
  t.strictSame([same.nMatched, same.nModified], [1, 0], 'replacing with the same content modifies nothing')
}

const checkBulkUpsertAndFailures: Check = async (t, { engine }) => {
  const seed = makeDoc({ name: 'golf' })
  const checked: Doc[] = []
  const upsert = {
    kind: 'update' as const,
    filter: { name: 'golf' },
    update: [['$set', 'n', 4]] as UpdateTerms,
    many: false,
    now: NOW,
    upsert: seed,
    check: (doc: Doc) => {
      checked.push(doc)
    }
  }
  t.strictSame(
    await engine.bulkWrite(ITEM, [upsert]),
    { nInserted: 0, nMatched: 0, nModified: 0, nUpserted: 1, nDeleted: 0, upsertedIds: [seed._id] },
    'upsert'
  )
  t.strictSame(
    await engine.findRaw(ITEM, { _id: seed._id }),
    { ...seed, n: 4 },
    'the upserted document has the update applied'
  )
  t.strictSame(checked, [{ ...seed, n: 4 }], 'and was checked')
  const doomed = makeDoc({ name: 'hotel' })
  const refuse = (): void => {
    throw new QuireError('VALIDATION_FAILED')
  }
  await t.rejects(
    engine.bulkWrite(ITEM, [
      { kind: 'insert', doc: doomed },
      { kind: 'update', filter: { name: 'hotel' }, update: [['$set', 'n', 1]], many: false, now: NOW, check: refuse }
    ]),
    { code: 'VALIDATION_FAILED' },
    'a failed check fails the request'
  )
  t.equal(await engine.findRaw(ITEM, { _id: doomed._id }), null, 'all or nothing')
  await t.rejects(
    engine.bulkWrite(ITEM, [
      { kind: 'insert', doc: makeDoc({ name: 'india' }) },
      { kind: 'insert', doc: makeDoc({ name: 'alpha' }) }
    ]),
    { code: 'DUPLICATE_KEY' },
    'a unique violation: DUPLICATE_KEY'
  )
  t.equal(await engine.count(ITEM, { name: 'india' }), 0, 'all or nothing')
  await t.rejects(
    engine.bulkWrite(ITEM, [
      { kind: 'update', filter: { name: 'golf' }, update: [['$inc', 'name', 1]], many: false, now: NOW, check: accept }
    ]),
    { code: 'INVALID_QUERY' },
    'an update that cannot apply: INVALID_QUERY'
  )
}

const checkIndexChanges: Check = async (t, { engine, logs }) => {
  await engine.insert(EVOLVE_V1, makeDoc({ code: 'a' }))
  const before = logs.length
  await engine.syncModels([EVOLVE_V2])
  t.ok(
    logs.slice(before).some(line => line.includes('building index')),
    'a second run builds a new index'
  )
  await t.rejects(engine.insert(EVOLVE_V2, makeDoc({ code: 'a' })), { code: 'DUPLICATE_KEY' }, 'and it applies')
  await engine.syncModels([EVOLVE_V1])
  await engine.insert(EVOLVE_V1, makeDoc({ code: 'a' }))
  t.equal(await engine.count(EVOLVE_V1, { code: 'a' }), 2, 'an index no longer defined is dropped')
}

const checkStreamFind: Check = async (t, { engine }) => {
  const wanted = query({
    filter: {},
    sort: [
      ['n', -1],
      ['name', 1]
    ],
    fields: ['name', 'n', 'secret'],
    populate: [populateOf('main_tag_id')]
  })
  const batches: string[][] = []
  const handed = await engine.streamFind(ITEM, wanted, 3, async docs => {
    batches.push(docs)
  })
  const all = docsOf((await engine.find(ITEM, wanted)).data)
  t.ok(all.length > 6, 'enough documents for several batches')
  t.strictSame(
    batches.flat().map(text => JSON.parse(text)),
    all,
    'every document of the query, in its order, as find gives them (no passwords)'
  )
  t.ok(
    batches.every(batch => batch.length <= 3) && batches.length === Math.ceil(all.length / 3),
    'in batches of at most batchSize'
  )
  t.equal(handed, all.length, 'returns how many were handed over')
  const paged = await engine.streamFind(ITEM, { ...wanted, skip: 2, limit: 3 }, 2, async () => {})
  t.equal(paged, 3, 'skip and limit apply')
  let calls = 0
  await t.rejects(
    engine.streamFind(ITEM, wanted, 2, async () => {
      calls++
      throw new Error('client went away')
    }),
    /client went away/,
    'an error of onBatch stops the read and is rethrown'
  )
  t.equal(calls, 1, 'no batch is read after it')
  t.equal(
    await engine.streamFind(ITEM, wanted, 100, async () => {}),
    all.length,
    'and the next read works (the cursor was released)'
  )
  t.equal(
    await engine.streamFind(ITEM, query({ filter: { name: 'no such name' } }), 10, async () => {
      t.fail('no batch for no documents')
    }),
    0,
    'no documents: no batch'
  )
}

const checkDeleteOne: Check = async (t, { engine }) => {
  const tag = makeDoc({ label: 'doomed', pin: '$2b$04$pin-doomed' })
  const single = makeDoc({ name: 'links-single', main_tag_id: tag._id })
  const many = makeDoc({ name: 'links-many', tag_ids: [TAGS.red._id, tag._id] })
  const gone = makeDoc({ name: 'links-deleted', main_tag_id: tag._id }, true)
  await engine.insert(TAG, tag)
  for (const doc of [single, many, gone]) await engine.insert(ITEM, doc)
  const referrers = (live: boolean, blocked: object = { _id: { $in: [] } }) =>
    ['main_tag_id', 'tag_ids'].map(field => ({
      model: ITEM,
      field,
      linking: { [field]: tag._id, ...(live && { _deleted: false }) },
      blocked: { [field]: tag._id, ...blocked }
    }))
  const plan = {
    target: { _id: tag._id, _deleted: false },
    permanent: false,
    cascade: false,
    now: NOW,
    referrers: referrers(true)
  }
  t.strictSame(
    await engine.deleteOne(TAG, plan),
    { status: 'referenced', model: ITEM.name, field: 'main_tag_id' },
    'referenced: the first referrer with a linking document'
  )
  t.strictSame(
    await engine.deleteOne(TAG, { ...plan, cascade: true, referrers: referrers(true, { name: 'links-many' }) }),
    { status: 'blocked', model: ITEM.name, field: 'tag_ids' },
    'blocked: a linking document the caller may not delete'
  )
  t.strictSame(
    [
      (await engine.findRaw(TAG, { _id: tag._id }))?._deleted,
      (await engine.findRaw(ITEM, { _id: single._id }))?._deleted
    ],
    [false, false],
    'a refused delete changes nothing'
  )
  t.strictSame(await engine.deleteOne(TAG, { ...plan, target: { _id: newId() } }), { status: 'missing' }, 'missing')
  const soft = await engine.deleteOne(TAG, { ...plan, cascade: true })
  t.strictSame(
    { ...soft, document: 'document' in soft ? JSON.parse(soft.document) : undefined },
    {
      status: 'deleted',
      document: public_(tag),
      cascaded: [
        { model: ITEM.name, field: 'main_tag_id', count: 1 },
        { model: ITEM.name, field: 'tag_ids', count: 1 }
      ]
    },
    'a soft cascade: the target as it was (no passwords), the live linking documents counted'
  )
  const after = await engine.findRaw(TAG, { _id: tag._id })
  t.strictSame([after?._deleted, after?.__v, after?.updatedAt], [true, 1, NOW], 'the target is marked deleted')
  const items = await Promise.all([single, many, gone].map(doc => engine.findRaw(ITEM, { _id: doc._id })))
  t.strictSame(
    items.map(doc => [doc?._deleted, doc?.__v]),
    [
      [true, 1],
      [true, 1],
      [true, 0]
    ],
    'so are the linking documents; already deleted ones are left alone'
  )
  const hard = await engine.deleteOne(TAG, {
    ...plan,
    target: { _id: tag._id },
    permanent: true,
    cascade: true,
    referrers: referrers(false)
  })
  t.strictSame(
    hard.status === 'deleted' && hard.cascaded.map(c => c.count),
    [2, 1],
    'a permanent cascade reaches deleted documents too'
  )
  t.strictSame(
    await Promise.all([
      engine.findRaw(TAG, { _id: tag._id }),
      ...[single, many, gone].map(doc => engine.findRaw(ITEM, { _id: doc._id }))
    ]),
    [null, null, null, null],
    'and removes them for good'
  )
  t.equal((await engine.findRaw(TAG, { _id: TAGS.red._id })) !== null, true, 'other documents stay')
}

/**
 * In order: later checks build on the documents earlier ones stored and changed. The third entry
 * names what a check needs that a server may lack (FerretDB v1): there it is skipped, the limit named.
 */
const CHECKS: Array<[string, Check, FerretLimit[]?]> = [
  ['syncModels', checkSync],
  ['insert', checkInsert],
  ['findOne and findRaw', checkRead],
  ['find', checkFind],
  ['find with populate', checkPopulate],
  ['find with search', checkSearch, ['text']],
  ['count and estimateCount', checkCounts],
  ['aggregate', checkAggregate],
  ['aggregate with $replaceRoot', checkAggregateRoot, ['stages']],
  ['aggregate with $lookup', checkAggregateLookup, ['lookup']],
  ['exportAll', checkExport],
  ['readSnapshot', checkSnapshot],
  ['updateOne', checkUpdate],
  ['insertMany', checkInsertMany],
  ['bulkWrite', checkBulkWrite],
  ['bulkWrite upsert and failures', checkBulkUpsertAndFailures],
  ['syncModels after a change', checkIndexChanges],
  ['streamFind', checkStreamFind],
  ['deleteOne', checkDeleteOne],
  ['matchDocuments', checkMatchDocuments, ['stages']],
  ['changes: follow and readAfter', checkChangeLog, ['changeStreams']],
  ['changes of internal models', checkInternalChanges, ['changeStreams']],
  ['changes: prune', checkPrune, ['changeStreams']],
  ['what the server lacks is refused clearly', checkRefusals]
]

for (const target of engineTargets()) {
  if ('skip' in target) {
    console.error(`# ${target.title} engine tests skipped: ${target.skip}`)
    t.test(`engine contract on ${target.title}`, { skip: target.skip }, async () => {})
    continue
  }
  t.test(`engine contract on ${target.title}`, async t => {
    const logs: string[] = []
    const engine = uncheckedEngine(
      await openTarget(t, target, msg => {
        logs.push(msg)
      }),
      MODELS
    )
    t.equal(engine.kind, target.name, 'kind')
    for (const [name, check, needs = []] of CHECKS) {
      const skip = lacking(target, ...needs)
      if (skip) console.error(`# ${target.title}: engine contract "${name}" skipped: ${skip}`)
      await t.test(name, { skip }, t => check(t, { engine, logs, target }))
    }
  })
}
