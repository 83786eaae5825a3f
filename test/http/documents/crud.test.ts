// HTTP scenarios for document CRUD on every engine: create, read, update,
// soft delete, restore, validation and error shapes.
import t from 'tap'
import { wideEngines, createTestApp } from '../../helpers/test-app.ts'

for (const engine of wideEngines()) {
  t.test(`document CRUD on ${engine}`, async t => {
    const { app, admin } = await createTestApp(t, engine)
    const json = (res: { body: string }) => JSON.parse(res.body)

    const created = await app.inject({
      method: 'POST',
      url: '/api/test',
      headers: { authorization: admin },
      payload: { foo: 'hello', shmack: ['a', 'b'], yack: { s: 'x', n: 3 }, password: 'secret-pw' }
    })
    t.equal(created.statusCode, 200, created.body)
    const body = json(created)
    t.equal(body.status, 'ok')
    t.equal(body.message, 'test created')
    const doc = body.data
    t.match(doc._id, /^[0-9a-f]{24}$/)
    t.equal(doc.id, doc._id)
    t.equal(doc._deleted, false)
    t.equal(doc.__v, 0)
    t.match(doc.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    t.equal(doc.createdAt, doc.updatedAt)
    t.same(doc.array_link_id, [], 'defaults apply')
    t.notOk('password' in doc, 'password never returned')
    t.notOk(created.body.includes('secret-pw'))

    const read = await app.inject({ url: `/api/test/${doc._id}` })
    t.equal(read.statusCode, 200, 'anonymous can read (all: r)')
    t.same(json(read).data.yack, { s: 'x', n: 3 })
    t.notOk('password' in json(read).data)

    const updated = await app.inject({
      method: 'PUT',
      url: `/api/test/${doc._id}`,
      headers: { authorization: admin },
      payload: { bar: 'new' }
    })
    t.equal(updated.statusCode, 200, updated.body)
    t.equal(json(updated).message, 'test updated')
    t.equal(json(updated).data.foo, 'hello', 'partial merge keeps other fields')
    t.equal(json(updated).data.bar, 'new')
    t.equal(json(updated).data.__v, 1)
    t.ok(json(updated).data.updatedAt >= doc.updatedAt)

    const list = await app.inject({ url: '/api/test' })
    t.equal(list.statusCode, 200)
    t.equal(json(list).count, 1)
    t.equal(json(list).data.length, 1)

    const deleted = await app.inject({
      method: 'DELETE',
      url: `/api/test/${doc._id}`,
      headers: { authorization: admin }
    })
    t.equal(deleted.statusCode, 200)
    t.same(json(deleted), { status: 'ok', message: `test/${doc._id} deleted` })
    t.equal((await app.inject({ url: `/api/test/${doc._id}` })).statusCode, 404, 'deleted document is gone from reads')
    t.equal(json(await app.inject({ url: '/api/test' })).count, 0)
    t.equal(
      (await app.inject({ method: 'DELETE', url: `/api/test/${doc._id}`, headers: { authorization: admin } }))
        .statusCode,
      404,
      'second delete is 404'
    )

    const restored = await app.inject({
      method: 'PUT',
      url: `/api/test/${doc._id}`,
      headers: { authorization: admin },
      payload: { _deleted: false }
    })
    t.equal(restored.statusCode, 200, restored.body)
    t.equal(json(restored).data._deleted, false)
    t.equal(json(restored).data.__v, 3, 'delete and restore both bump __v')
  })

  t.test(`bad input on ${engine}`, async t => {
    const { app, admin } = await createTestApp(t, engine)
    const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
      app.inject({ method: 'POST', url, headers: { authorization: admin, ...headers }, payload: payload as string })

    const invalid = await post('/api/test', { foo: 5, nope: 1 })
    t.equal(invalid.statusCode, 400)
    const body = JSON.parse(invalid.body)
    t.equal(body.status, 'fail')
    t.equal(body.code, 'VALIDATION_FAILED')
    t.same(body.details.map((d: { field: string }) => d.field).sort(), ['foo', 'nope'])

    t.equal((await post('/api/nosuchmodel', { a: 1 })).statusCode, 404)
    t.equal(JSON.parse((await post('/api/nosuchmodel', { a: 1 })).body).code, 'MODEL_NOT_FOUND')
    t.equal((await app.inject({ url: '/api/test/not-an-id' })).statusCode, 400)
    t.equal((await app.inject({ url: '/api/test/0123456789abcdef01234567' })).statusCode, 404)
    const broken = await post('/api/test', '{"foo":', { 'content-type': 'application/json' })
    t.equal(broken.statusCode, 400)
    t.equal(JSON.parse(broken.body).code, 'INVALID_BODY')
    t.equal((await post('/api/test', 'foo=x', { 'content-type': 'text/plain' })).statusCode, 415)
    t.equal((await post('/api/test', [1, 2])).statusCode, 400, 'an array body is not a document')
    t.equal(
      (
        await app.inject({
          method: 'PATCH',
          url: '/api/test/0123456789abcdef01234567',
          headers: { authorization: admin }
        })
      ).statusCode,
      405
    )
    t.equal((await post('/api/test', { link_id: 'zzz' })).statusCode, 400, 'link ids are validated')
    t.equal(JSON.parse((await app.inject({ url: '/api/test' })).body).count, 0, 'nothing was written by bad requests')

    const form = await post('/api/link', 'name=formed&val=42', { 'content-type': 'application/x-www-form-urlencoded' })
    t.equal(form.statusCode, 200, form.body)
    t.equal(JSON.parse(form.body).data.val, 42, 'form fields are coerced by the schema')

    const anon = await app.inject({ method: 'POST', url: '/api/test', payload: { foo: 'x' } })
    t.equal(anon.statusCode, 401, 'anonymous cannot create (all: r)')
  })
}
