// A link field names only documents its writer can read. Found by an outside review: a user could
// link to the (sequential, easy to guess) id of a document they cannot read, and its owner then
// could not delete it (409 naming a model they cannot see). Such a write is now a 400 that says
// the same for a document that is unreadable, deleted or missing, so it reveals nothing.
import t from 'tap'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ENGINES, createTestApp } from '../../helpers/test-app.ts'

const models = mkdtempSync(join(tmpdir(), 'quire-link-models-'))
writeFileSync(
  join(models, 'diary.json'),
  JSON.stringify({
    name: 'diary',
    fields: { text: { type: 'string' } },
    perms: { admin: 'crud', owner: 'crud', user: 'c' }
  })
)
writeFileSync(
  join(models, 'memo.json'),
  JSON.stringify({
    name: 'memo',
    fields: {
      text: { type: 'string' },
      diary_id: { type: 'id', link: 'diary' },
      array_diary_id: { type: 'array', items: { type: 'id' }, link: 'diary', default: [] }
    },
    perms: { admin: 'crud', owner: 'crud', user: 'cr' }
  })
)

for (const engine of ENGINES) {
  t.test(`links to documents the writer cannot read, on ${engine}`, async t => {
    const { app, admin, createUser } = await createTestApp(t, engine, { modelsDir: models })
    const alice = await createUser('alice@example.com', 'alice-password')
    const mallory = await createUser('mallory@example.com', 'mallory-password')
    const call = async (method: 'POST' | 'PUT' | 'DELETE', url: string, authorization: string, payload?: object) => {
      const res = await app.inject({ method, url, headers: { authorization }, ...(payload && { payload }) })
      return { status: res.statusCode, body: JSON.parse(res.body) }
    }
    const secret = (await call('POST', '/api/diary', alice.auth, { text: 'private' })).body.data._id as string
    const own = (await call('POST', '/api/diary', mallory.auth, { text: 'mine' })).body.data._id as string
    const gone = (await call('POST', '/api/diary', mallory.auth, { text: 'deleted' })).body.data._id as string
    await call('DELETE', `/api/diary/${gone}`, mallory.auth)
    const missing = 'ffffffffffffffffffffffff'

    const answers = []
    for (const id of [secret, gone, missing]) {
      const res = await call('POST', '/api/memo', mallory.auth, { text: 'x', diary_id: id })
      t.equal(
        res.status,
        400,
        `a link to ${id === secret ? "another user's" : id === gone ? 'a deleted' : 'a missing'} document is refused`
      )
      answers.push(JSON.stringify({ ...res.body, message: res.body.message.replace(id, '<id>') }))
    }
    t.equal(new Set(answers).size, 1, 'the same answer for unreadable, deleted and missing: nothing revealed')
    t.match(JSON.parse(answers[0]), { code: 'VALIDATION_FAILED', details: [{ field: 'diary_id' }] })
    t.equal(
      (await call('POST', '/api/memo', mallory.auth, { text: 'x', array_diary_id: [own, secret] })).status,
      400,
      'in a list of links too'
    )
    const memo = await call('POST', '/api/memo', mallory.auth, { text: 'x', diary_id: own, array_diary_id: [own] })
    t.equal(memo.status, 200, 'a link to a readable document is fine')
    t.equal(
      (await call('PUT', `/api/memo/${memo.body.data._id}`, mallory.auth, { diary_id: secret })).status,
      400,
      'an update is checked too'
    )
    t.equal(
      (await call('PUT', `/api/memo/${memo.body.data._id}`, mallory.auth, { diary_id: null })).status,
      200,
      'clearing a link is fine'
    )
    const bulk = async (ops: object[]) =>
      (
        await app.inject({
          method: 'POST',
          url: '/bulkwrite/memo',
          headers: { authorization: mallory.auth },
          payload: ops
        })
      ).statusCode
    t.equal(await bulk([{ insertOne: { document: { text: 'x', diary_id: secret } } }]), 400, 'bulk insertOne')
    t.equal(
      await bulk([{ updateOne: { filter: { _id: memo.body.data._id }, update: { $set: { diary_id: secret } } } }]),
      400,
      'bulk $set'
    )
    t.equal(
      await bulk([
        {
          updateOne: { filter: { _id: memo.body.data._id }, update: { $push: { array_diary_id: { $each: [secret] } } } }
        }
      ]),
      400,
      'bulk $push $each'
    )
    t.equal(
      await bulk([
        { insertOne: { document: { text: 'x', diary_id: own } } },
        { updateOne: { filter: { _id: memo.body.data._id }, update: { $push: { array_diary_id: own } } } }
      ]),
      200,
      'bulk writes of readable links'
    )
    t.equal(
      (await call('DELETE', `/api/diary/${secret}`, alice.auth)).status,
      200,
      'the owner deletes the document: nobody could link to it'
    )
    t.equal(
      (await call('POST', '/api/memo', admin, { text: 'x', diary_id: missing })).status,
      200,
      'an admin, who reads everything, is not checked'
    )
  })
}
