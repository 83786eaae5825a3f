// All or nothing on the MongoDB engine when a write fails midway. Where the server has no
// transactions (FerretDB, a standalone MongoDB) the undo log takes back what was written
// (src/storage/mongodb/mongo-bulk-write.ts); on a replica set the transaction does. The failure is real:
// a unique index of the user's own (created through the driver, as a DBA would) on the linking
// collection refuses the cascade's soft delete of a document after the target was already marked.
import t from 'tap'
import { MongoClient } from 'mongodb'
import { engineTargets, openTarget } from '../../helpers/engine-targets.ts'
import { uncheckedEngine } from '../../helpers/unchecked-engine.ts'
import { parseModelFile } from '../../../src/models/load-models.ts'
import { makeDoc } from '../../helpers/engine-fixtures.ts'
import { collectionName } from '../../../src/storage/mongodb/mongo-indexes.ts'

const PARENT = parseModelFile(JSON.stringify({ name: 'u_parent', fields: { label: { type: 'string' } } }), 'mongo-undo')
const CHILD = parseModelFile(
  JSON.stringify({
    name: 'u_child',
    fields: { code: { type: 'string' }, parent_id: { type: 'id', link: 'u_parent' } }
  }),
  'mongo-undo'
)
const NOW = '2024-09-01T00:00:00.000Z'
/** The database URL of each opened target, for a driver connection of the test's own. */
const urls: string[] = []

for (const target of engineTargets().filter(target => target.name === 'mongodb')) {
  if ('skip' in target) {
    t.test(`a failed cascade changes nothing on ${target.title}`, { skip: target.skip }, async () => {})
    continue
  }
  t.test(`a failed cascade changes nothing on ${target.title}`, async t => {
    const opened = await openTarget(
      t,
      {
        ...target,
        url: async t => {
          const url = await target.url(t)
          urls.push(url)
          return url
        }
      },
      () => {}
    )
    const engine = uncheckedEngine(opened, [PARENT, CHILD])
    await engine.syncModels([PARENT, CHILD])
    const client = await MongoClient.connect(urls.at(-1)!)
    t.teardown(() => client.close())
    await client
      .db()
      .collection(collectionName(CHILD))
      .createIndex({ code: 1, _deleted: 1 }, { unique: true, name: 'dba_code_deleted' })

    const parent = makeDoc({ label: 'p' })
    const earlier = makeDoc({ code: 'x' }, true)
    const live = makeDoc({ code: 'x', parent_id: parent._id })
    const other = makeDoc({ code: 'y', parent_id: parent._id })
    await engine.insert(PARENT, parent)
    for (const doc of [earlier, other, live]) await engine.insert(CHILD, doc)
    const referrers = [
      {
        model: CHILD,
        field: 'parent_id',
        linking: { parent_id: parent._id, _deleted: false },
        blocked: { _id: { $in: [] } }
      }
    ]
    await t.rejects(
      engine.deleteOne(PARENT, {
        target: { _id: parent._id, _deleted: false },
        permanent: false,
        cascade: true,
        now: NOW,
        referrers
      }),
      { code: 'DUPLICATE_KEY' },
      'the cascade fails on the index'
    )
    const after = await Promise.all([
      engine.findRaw(PARENT, { _id: parent._id }),
      ...[live, other].map(doc => engine.findRaw(CHILD, { _id: doc._id }))
    ])
    t.strictSame(
      after.map(doc => [doc?._deleted, doc?.__v, doc?.updatedAt]),
      [
        [false, 0, parent.updatedAt],
        [false, 0, live.updatedAt],
        [false, 0, other.updatedAt]
      ],
      'the target and the linking documents are as before'
    )
  })
}
