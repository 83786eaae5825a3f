// Reads and updates pinned to one id on FerretDB: the filter FerretDB gets names `_id` as a plain
// top-level equality, which FerretDB over PostgreSQL has the database check, where with the `$in`
// of both stored forms (text and ObjectId) it read every document into FerretDB and checked the id
// there (about 25 times slower on 10,000 documents): FerretDB's `explain` shows PostgreSQL's plan. Both forms are still
// found, the text
// first, then the ObjectId of a document a JXP app stored through Mongoose.
import t from 'tap'
import { MongoClient, ObjectId, type Document } from 'mongodb'
import postgres from 'postgres'
import { ferretdbBinary, startFerretDB } from '../../helpers/ferretdb.ts'
import { startPgCluster } from '../../helpers/throwaway-cluster.ts'
import { openEngine } from '../../../src/storage/open-engine.ts'
import { uncheckedEngine } from '../../helpers/unchecked-engine.ts'
import { parseModelFile } from '../../../src/models/load-models.ts'
import { makeDoc } from '../../helpers/engine-fixtures.ts'
import { collectionName } from '../../../src/storage/mongodb/mongo-indexes.ts'
import { bothForms, oneIdForm } from '../../../src/storage/mongodb/mongo-stored-forms.ts'

const MODEL = parseModelFile(
  JSON.stringify({ name: 'pinned', fields: { label: { type: 'string' } } }),
  'mongo-id-lookup'
)

const found = ferretdbBinary()
if ('missing' in found) {
  console.error(`# FerretDB: mongo-id-lookup skipped: ${found.missing}`)
  t.test('reads by id on FerretDB', { skip: found.missing }, async () => {})
} else {
  t.test('reads by id on FerretDB over PostgreSQL', async t => {
    const cluster = await startPgCluster()
    t.teardown(() => cluster.stop())
    const admin = postgres(cluster.url, { max: 1, onnotice: () => {} })
    await admin.unsafe('CREATE DATABASE ferretdb')
    await admin.end()
    const server = await startFerretDB(found.bin, { postgresUrl: cluster.url.replace(/\/postgres$/, '/ferretdb') })
    t.teardown(() => server.stop())
    const url = `${server.url}quire_pinned`
    const engine = uncheckedEngine(await openEngine(url, { statementTimeoutMs: 10_000 }), [MODEL])
    t.teardown(() => engine.close())
    await engine.syncModels([MODEL])
    const client = await MongoClient.connect(url)
    t.teardown(() => client.close())
    const collection = client.db().collection(collectionName(MODEL))

    const quireDoc = makeDoc({ label: 'written by Quire' })
    await engine.insert(MODEL, quireDoc)
    for (let i = 0; i < 20; i++) await engine.insert(MODEL, makeDoc({ label: `other ${i}` }))
    const jxpId = new ObjectId()
    await collection.insertOne({ _id: jxpId, label: 'written by Mongoose', _deleted: false, __v: 0 } as Document)

    const byId = { _id: quireDoc._id as string, _deleted: false }
    const idInDatabase = async (filter: Document): Promise<boolean> => {
      const plan = await client
        .db()
        .command({ explain: { aggregate: collectionName(MODEL), pipeline: [{ $match: filter }], cursor: {} } })
      // FerretDB sends PostgreSQL what it can of a filter (`filterPushdown` says only that some of it went)
      // and checks the rest itself on every document read: the plan's Filter shows whether the id went.
      return JSON.stringify(plan.queryPlanner).includes("-> '_id'")
    }
    t.equal(await idInDatabase(oneIdForm(MODEL, byId, 'text')), true, 'the id as text runs in the database')
    t.equal(await idInDatabase(oneIdForm(MODEL, byId, 'objectId')), true, 'the id as an ObjectId too')
    t.equal(
      await idInDatabase(bothForms(MODEL, byId)),
      false,
      'both forms at once ($in) would read the whole collection'
    )
    t.equal(
      await idInDatabase(oneIdForm(MODEL, { $and: [byId, { label: { $exists: true } }] }, 'text')),
      true,
      'an id inside $and is lifted to the top level'
    )

    t.match(
      JSON.parse((await engine.findOne(MODEL, byId))!),
      { label: 'written by Quire' },
      'a document Quire wrote, by its text id'
    )
    const jxp = { _id: jxpId.toHexString(), _deleted: false }
    t.match(
      JSON.parse((await engine.findOne(MODEL, jxp))!),
      { _id: jxpId.toHexString(), label: 'written by Mongoose' },
      "a JXP app's document, by its ObjectId"
    )
    t.match(await engine.findRaw(MODEL, jxp), { label: 'written by Mongoose' }, 'findRaw too')
    t.match(
      JSON.parse((await engine.updateOne(MODEL, jxp, { label: 'renamed' }))!),
      { label: 'renamed' },
      'an update by ObjectId'
    )
    t.equal(
      await engine.findOne(MODEL, { _id: new ObjectId().toHexString(), _deleted: false }),
      null,
      'an unknown id: nothing, after both forms'
    )
    const page = await engine.find(MODEL, {
      filter: { _id: quireDoc._id, _deleted: false },
      sort: [],
      limit: 10,
      skip: 0,
      count: true,
      populate: []
    })
    t.equal(page.count, 1, 'a list pinned to the id counts it')
  })
}
