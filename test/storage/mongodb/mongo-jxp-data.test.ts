// A JXP app's data served by Quire's MongoDB engine: documents stored the way Mongoose stores
// them (ObjectId `_id`, `_owner_id` and links, BSON dates, `__v`, no `id`, an old document
// without `_deleted`), inserted through the driver into the collections Quire reads (q_<model>:
// docs/mongodb.md tells a JXP user how to rename theirs), then read, filtered, populated,
// updated and deleted through the HTTP API. Runs on FerretDB and on MongoDB (MONGODB_URL).
import t from 'tap'
import { MongoClient, ObjectId } from 'mongodb'
import { wideEngines, createTestApp, databaseUrl } from '../../helpers/test-app.ts'

type Json = Record<string, any>

for (const engine of wideEngines().filter(e => e !== 'postgres')) {
  t.test(`a JXP app's documents on ${engine}`, async t => {
    const url = await databaseUrl(engine)
    const { app, admin, createUser } = await createTestApp(t, engine, { databaseUrl: url })
    const client = await MongoClient.connect(url)
    t.teardown(() => client.close())
    const db = client.db()

    const user = await createUser('owner@example.com', 'owner-password')
    const other = await createUser('other@example.com', 'other-password')
    const created = new Date('2023-03-04T05:06:07.089Z')
    const link = {
      _id: new ObjectId(),
      name: 'target',
      val: 7,
      _deleted: false,
      _owner_id: null,
      createdAt: created,
      updatedAt: created,
      __v: 0
    }
    const old = {
      _id: new ObjectId(),
      name: 'no _deleted field',
      val: 1,
      createdAt: created,
      updatedAt: created,
      __v: 0
    }
    await db.collection('q_link').insertMany([link, old])
    const doc = {
      _id: new ObjectId(),
      foo: 'from mongoose',
      link_id: link._id,
      array_link_id: [link._id],
      _deleted: false,
      _owner_id: ObjectId.createFromHexString(user.id),
      createdAt: created,
      updatedAt: created,
      __v: 0
    }
    await db.collection('q_test').insertOne(doc)
    const hex = doc._id.toHexString()
    const get = async (path: string, status = 200, authorization = admin): Promise<Json> => {
      const res = await app.inject({ url: path, headers: { authorization } })
      t.equal(res.statusCode, status, `${path} -> ${res.body.slice(0, 300)}`)
      return JSON.parse(res.body)
    }

    const one = (await get(`/api/test/${hex}`)).data
    t.match(
      one,
      {
        _id: hex,
        id: hex,
        foo: 'from mongoose',
        link_id: link._id.toHexString(),
        _owner_id: user.id,
        createdAt: created.toISOString(),
        __v: 0
      },
      'by its id: ObjectIds as their 24 hex digits, dates as ISO text, and `id` beside `_id`'
    )
    t.strictSame(
      (await get('/api/link?sort=name')).data.map((d: Json) => d.name),
      ['no _deleted field', 'target'],
      'a document without _deleted is live, as in JXP'
    )
    t.strictSame(
      (await get(`/api/test?filter[link_id]=${link._id.toHexString()}`)).data.map((d: Json) => d._id),
      [hex],
      'a filter on a link'
    )
    t.strictSame(
      (await get(`/api/test?filter[_owner_id]=${user.id}`)).data.map((d: Json) => d._id),
      [hex],
      'a filter on the owner'
    )
    t.strictSame(
      (await get('/api/test?filter[createdAt]=$gt:2023-01-01')).data.map((d: Json) => d._id),
      [hex],
      'dates compare with dates'
    )
    t.strictSame((await get('/api/test?filter[createdAt]=$gt:2024-01-01')).data, [], 'and exclude what they should')
    const populated = (await get(`/api/test/${hex}?populate=link&populate=array_link`)).data
    t.strictSame(
      [populated.link?.name, populated.array_link?.map((l: Json) => l.name)],
      ['target', ['target']],
      'populate follows ObjectId links'
    )
    t.equal((await get(`/count/test?filter[link_id]=${link._id.toHexString()}`)).count, 1, '/count')

    const put = await app.inject({
      method: 'PUT',
      url: `/api/test/${hex}`,
      headers: { authorization: user.auth },
      payload: { bar: 'changed by its owner' }
    })
    t.equal(put.statusCode, 200, `the owner (an ObjectId _owner_id) may update it: ${put.body.slice(0, 300)}`)
    t.match(
      JSON.parse(put.body).data,
      { _id: hex, id: hex, bar: 'changed by its owner', foo: 'from mongoose', __v: 1 },
      'merged, __v bumped'
    )
    const stranger = await app.inject({
      method: 'PUT',
      url: `/api/test/${hex}`,
      headers: { authorization: other.auth },
      payload: { bar: 'no' }
    })
    t.equal(stranger.statusCode, 403, 'another user may not')

    const bulk = await app.inject({
      method: 'POST',
      url: '/bulkwrite/link',
      headers: { authorization: admin },
      payload: [
        { updateOne: { filter: { _id: link._id.toHexString() }, update: { $inc: { val: 1 } } } }
      ] as unknown as object
    })
    t.match(JSON.parse(bulk.body), { nMatched: 1, nModified: 1 }, 'a bulk update by _id')

    const deleted = await app.inject({
      method: 'DELETE',
      url: `/api/link/${old._id.toHexString()}`,
      headers: { authorization: admin }
    })
    t.equal(deleted.statusCode, 200, `delete: ${deleted.body.slice(0, 300)}`)
    await get(`/api/link/${old._id.toHexString()}`, 404)
    const referenced = await app.inject({
      method: 'DELETE',
      url: `/api/link/${link._id.toHexString()}`,
      headers: { authorization: admin }
    })
    t.equal(referenced.statusCode, 409, 'a document a JXP document links to (by ObjectId) is referenced')

    const exported: Json[] = []
    for await (const batch of app.db.exportAll(app.models.get('link')!, 1))
      exported.push(...batch.map(text => JSON.parse(text) as Json))
    t.strictSame(exported.map(d => d.name).sort(), ['no _deleted field', 'target'], 'export pages through ObjectId ids')
  })
}
