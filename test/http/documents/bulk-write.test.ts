// HTTP scenarios for POST /bulkwrite/{model} on every engine: each operation
// kind, update operators, upserts, counts, permissions and all-or-nothing.
import t from 'tap'
import { wideEngines, createTestApp } from '../../helpers/test-app.ts'

for (const engine of wideEngines()) {
  t.test(`bulk writes on ${engine}`, async t => {
    const { app, admin, createUser } = await createTestApp(t, engine)
    const bulk = (payload: unknown, authorization = admin) =>
      app.inject({ method: 'POST', url: '/bulkwrite/link', headers: { authorization }, payload: payload as object })
    const list = async (query = '') => JSON.parse((await app.inject({ url: `/api/link?sort=name${query}` })).body)

    const first = await bulk([
      { insertOne: { document: { name: 'a', val: 1 } } },
      { insertOne: { document: { name: 'b', val: 2 } } },
      { insertOne: { document: { name: 'c', val: 3 } } },
      { updateOne: { filter: { name: 'a' }, update: { $inc: { val: 10 } } } },
      { updateMany: { filter: { val: { $gte: 2 } }, update: { $set: { name: 'big' } } } },
      { updateOne: { filter: { name: 'zzz' }, update: { $set: { val: 7 } }, upsert: true } },
      { deleteOne: { filter: { val: 2 } } }
    ])
    t.equal(first.statusCode, 200, first.body)
    const result = JSON.parse(first.body)
    t.match(result, { status: 'ok', nInserted: 3, nMatched: 4, nModified: 4, nUpserted: 1, nDeleted: 1 })
    t.equal(result.upsertedIds.length, 1)

    const after = await list()
    t.same(
      after.data.map((d: { name: string; val: number }) => [d.name, d.val]),
      [
        ['big', 11],
        ['big', 3],
        ['zzz', 7]
      ]
    )
    const upserted = after.data.find((d: { name: string }) => d.name === 'zzz')
    t.equal(upserted._id, result.upsertedIds[0])
    t.equal(after.data.find((d: { val: number }) => d.val === 11).__v, 2, 'each change bumps __v')

    const unchanged = await bulk([{ updateMany: { filter: {}, update: { $set: { name: 'big' } } } }])
    t.match(JSON.parse(unchanged.body), { nMatched: 3, nModified: 1 }, 'nModified counts only documents that changed')

    const arrays = await app.inject({
      method: 'POST',
      url: '/bulkwrite/test',
      headers: { authorization: admin },
      payload: [
        { insertOne: { document: { foo: 'arr', shmack: ['x'] } } },
        { updateOne: { filter: { foo: 'arr' }, update: { $push: { shmack: { $each: ['y', 'z'] } } } } },
        { updateOne: { filter: { foo: 'arr' }, update: { $addToSet: { shmack: 'x' } } } },
        {
          updateOne: {
            filter: { foo: 'arr' },
            update: { $pull: { shmack: 'y' }, $unset: { bar: '' }, $set: { 'yack.n': 5 } }
          }
        }
      ]
    })
    t.equal(arrays.statusCode, 200, arrays.body)
    const doc = JSON.parse((await app.inject({ url: '/api/test?filter[foo]=arr' })).body).data[0]
    t.same(doc.shmack, ['x', 'z'])
    t.same(doc.yack, { n: 5 }, '$set on a dotted path creates the parent object')

    const before = await list()
    const failing = await bulk([
      { insertOne: { document: { name: 'should-not-stay', val: 1 } } },
      { updateOne: { filter: { val: 7 }, update: { $set: { val: 'not a number' } } } }
    ])
    t.equal(failing.statusCode, 400, 'a schema violation in an update fails the request')
    t.same((await list()).data, before.data, 'and nothing of it was written')

    const incOnString = await bulk([{ updateOne: { filter: { val: 7 }, update: { $inc: { name: 1 } } } }])
    t.equal(incOnString.statusCode, 400, '$inc on a string is a 400, not a 500')
    t.equal((await bulk([{ insertMany: {} }])).statusCode, 400)
    t.equal((await bulk([{ updateOne: { filter: {}, update: { $rename: { a: 'b' } } } }])).statusCode, 400)
    t.equal(
      (await bulk([{ updateOne: { filter: {}, update: { $set: { _id: 'x' } } } }])).statusCode,
      400,
      'system fields cannot be updated'
    )
    t.equal((await bulk({})).statusCode, 400)

    // The reliability fuzz found a 500 here: the written values were gathered in a plain object.
    const prototypeName = await bulk([
      { insertOne: { document: { name: 'should-not-stay', val: 1 } } },
      { updateMany: { filter: {}, update: { $addToSet: { hasOwnProperty: 'x' } } } }
    ])
    t.equal(prototypeName.statusCode, 400, 'a field named like an Object.prototype member is a 400, not a 500')
    t.match(JSON.parse(prototypeName.body), {
      code: 'VALIDATION_FAILED',
      details: [{ field: 'hasOwnProperty', message: 'is not a field of this model' }]
    })
    t.same((await list()).data, before.data, 'and nothing of it was written')

    const anonymous = await app.inject({
      method: 'POST',
      url: '/bulkwrite/link',
      payload: [{ deleteMany: { filter: {} } }]
    })
    t.equal(anonymous.statusCode, 401, 'anonymous callers may not delete')
    const user = await createUser('u@example.com', 'user-password')
    const own = await bulk([{ deleteMany: { filter: {} } }], user.auth)
    t.match(JSON.parse(own.body), { nDeleted: 0 }, 'a user deletes only documents it owns (perms owner: d)')
    t.equal((await list()).count, 3)
  })
}
