// Regression tests of the outside audit (issue 9), password-field class: the audit's
// own requests on every engine. Password hashes leave through no pipeline (self-
// $lookup, sub-pipelines), no bulk filter can match them, bulk upserts cannot copy them
// unhashed, and nested password fields are refused when a model is loaded.
import t from 'tap'
import { ENGINES, createTestApp, type TestApp } from '../../helpers/test-app.ts'
import { json } from '../../helpers/auth-helpers.ts'
import { parseModelFile } from '../../../src/models/load-models.ts'

const HASH = /\$2[aby]\$/

async function seed({ app, admin, createUser }: TestApp): Promise<{ user: string }> {
  for (const foo of ['a', 'b']) {
    const res = await app.inject({
      method: 'POST',
      url: '/api/test',
      headers: { authorization: admin },
      payload: { foo, password: `secret-${foo}` }
    })
    if (res.statusCode !== 200) throw new Error(res.body)
  }
  return { user: (await createUser('alice@example.com', 'alice-password')).auth }
}

for (const engine of ENGINES) {
  t.test(`password hashes leave through no pipeline on ${engine}`, async t => {
    const ctx = await createTestApp(t, engine)
    const { user } = await seed(ctx)
    const aggregate = (model: string, pipeline: unknown[], authorization?: string) =>
      ctx.app.inject({
        method: 'POST',
        url: `/aggregate/${model}`,
        headers: authorization ? { authorization } : {},
        payload: pipeline
      })

    const selfLookup = { $lookup: { from: 'test', localField: '_deleted', foreignField: '_deleted', as: 'all' } }
    const audit = await aggregate('test', [{ $limit: 1 }, selfLookup, { $project: { 'all.password': 1 } }])
    t.equal(audit.statusCode, 400, "the audit's anonymous self-$lookup request is refused")
    t.equal(json(audit).code, 'INVALID_FIELD')
    t.notMatch(audit.body, HASH)

    const joined = await aggregate('test', [{ $limit: 1 }, selfLookup])
    t.equal(joined.statusCode, 200, 'a self-$lookup without naming the field runs')
    const all = json(joined).data[0].all as Array<Record<string, unknown>>
    t.equal(all.length, 2, 'it reads the live documents of the model')
    t.notMatch(joined.body, HASH, 'and no hash')
    t.ok(
      all.every(doc => !('password' in doc)),
      'the looked-up documents have no password field'
    )

    const nested = await aggregate('test', [
      { $limit: 1 },
      { $lookup: { from: 'test', pipeline: [{ $replaceRoot: { newRoot: { copy: '$$ROOT' } } }], as: 'all' } },
      { $facet: { inner: [{ $lookup: { from: 'test', pipeline: [{ $project: { whole: '$$ROOT' } }], as: 'deep' } }] } }
    ])
    t.equal(nested.statusCode, 200, 'sub-pipelines of $lookup and $facet run')
    t.notMatch(nested.body, HASH, 'and see no password field, even through $$ROOT')

    for (const authorization of [user, ctx.admin]) {
      const users = await aggregate(
        'user',
        [{ $lookup: { from: 'user', localField: '_id', foreignField: '_id', as: 'me' } }],
        authorization
      )
      t.equal(users.statusCode, 200)
      t.notMatch(users.body, HASH, `/aggregate/user as ${authorization === user ? 'a user' : 'an admin'}: no hash`)
    }

    for (const pipeline of [
      [{ $match: { password: { $regex: '^\\$2' } } }],
      [{ $match: { $expr: { $eq: ['$password', 'x'] } } }],
      [{ $group: { _id: '$password' } }],
      [{ $sort: { password: 1 } }],
      [{ $lookup: { from: 'test', pipeline: [{ $match: { password: { $exists: true } } }], as: 'x' } }],
      [{ $facet: { a: [{ $project: { p: '$$ROOT.password' } }] } }]
    ]) {
      const res = await aggregate('test', pipeline)
      t.equal(res.statusCode, 400, `${JSON.stringify(pipeline)}: naming a password field is a 400`)
    }
  })

  t.test(`bulk writes cannot match or copy password fields on ${engine}`, async t => {
    const ctx = await createTestApp(t, engine)
    await seed(ctx)
    const bulk = (operations: unknown[]) =>
      ctx.app.inject({
        method: 'POST',
        url: '/bulkwrite/test',
        headers: { authorization: ctx.admin },
        payload: operations
      })

    const oracle = await bulk([
      { updateOne: { filter: { password: { $regex: '^\\$2b\\$10\\$a' } }, update: { $set: { bar: 'x' } } } }
    ])
    t.equal(oracle.statusCode, 400, "the audit's hash oracle (a no-op updateOne filtering on the hash) is refused")
    t.match(json(oracle).message, /password cannot be used in a query/)
    for (const filter of [{ password: 'x' }, { $or: [{ foo: 'a' }, { password: { $exists: true } }] }]) {
      const res = await bulk([{ deleteMany: { filter } }])
      t.equal(res.statusCode, 400, `deleteMany filtering on ${JSON.stringify(filter)}: 400`)
    }

    const upsert = await bulk([
      { updateOne: { filter: { foo: 'new', password: 'plain-text' }, update: { $set: { bar: 'y' } }, upsert: true } }
    ])
    t.equal(upsert.statusCode, 400, 'an upsert whose filter holds a password is refused, so nothing copies it unhashed')
    const stored = await ctx.app.system.findRaw(ctx.app.models.get('test'), { foo: 'new' })
    t.equal(stored, null, 'and nothing was stored')

    const setOnUpsert = await bulk([
      { updateOne: { filter: { foo: 'fresh' }, update: { $set: { password: 'plain-text' } }, upsert: true } }
    ])
    t.equal(setOnUpsert.statusCode, 200, 'a password set by the update itself is allowed')
    const fresh = await ctx.app.system.findRaw(ctx.app.models.get('test'), { foo: 'fresh' })
    t.match(fresh?.password, HASH, 'and stored as a bcrypt hash')
  })
}

t.test('password fields nested in objects or arrays are refused when a model loads', async t => {
  const load = (fields: object) => () =>
    parseModelFile(JSON.stringify({ name: 'nested', fields }), 'models/nested.json')
  t.throws(
    load({ login: { type: 'object', properties: { secret: { type: 'password' } } } }),
    /password field login\.secret must be a top-level field/
  )
  t.throws(
    load({ pins: { type: 'array', items: { type: 'password' } } }),
    /password field pins\.\[\] must be a top-level field/
  )
  t.throws(
    load({ keys: { type: 'array', items: { type: 'object', properties: { p: { type: 'password' } } } } }),
    /keys\.\[\]\.p/
  )
  t.doesNotThrow(load({ secret: { type: 'password' } }), 'a top-level password field is fine')
})
