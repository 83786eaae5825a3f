// JXP's delete semantics on every engine: a document live documents link to is a 409
// naming the referring model and field; _cascade=1 deletes those too (soft, or with
// _permaDelete=1 for good), never one the caller could not delete itself; a permanent
// delete removes the document, soft-deleted ones included. A refused delete changes
// nothing, and no reply says "deleted" for what was not.
import t from 'tap'
import { ENGINES, createTestApp } from '../../helpers/test-app.ts'

for (const engine of ENGINES) {
  t.test(`JXP delete semantics on ${engine}`, async t => {
    const { app, admin, createUser } = await createTestApp(t, engine)
    const alice = await createUser('alice@example.com', 'alice-password')
    const bob = await createUser('bob@example.com', 'bob-password')
    const json = (res: { body: string }) => JSON.parse(res.body)
    const post = async (model: string, payload: object, authorization: string): Promise<string> => {
      const res = await app.inject({ method: 'POST', url: `/api/${model}`, headers: { authorization }, payload })
      t.equal(res.statusCode, 200, res.body)
      return json(res).data._id
    }
    const del = (model: string, id: string, query: string, authorization?: string) =>
      app.inject({
        method: 'DELETE',
        url: `/api/${model}/${id}${query}`,
        headers: authorization ? { authorization } : {}
      })
    const stored = async (model: string, id: string) => {
      const res = await app.inject({ url: `/api/${model}/${id}?showDeleted=1`, headers: { authorization: admin } })
      return res.statusCode === 200 ? (json(res).data._deleted as boolean) : 'gone'
    }

    await t.test('409 while live documents link to it', async t => {
      const link = await post('link', { name: 'l' }, alice.auth)
      const single = await post('test', { foo: 'single', link_id: link }, alice.auth)
      const res = await del('link', link, '', alice.auth)
      t.equal(res.statusCode, 409)
      t.match(json(res), {
        status: 'fail',
        code: 'REFERENCED',
        message: 'Parent link item exists in test/link_id',
        details: { model: 'test', field: 'link_id' }
      })
      t.equal(await stored('link', link), false, 'nothing was deleted')
      await del('test', single, '', alice.auth)
      const many = await post('test', { foo: 'many', array_link_id: [link] }, alice.auth)
      t.match(
        json(await del('link', link, '', alice.auth)),
        { message: 'Parent link item exists in test/array_link_id' },
        'a list of links counts too'
      )
      await del('test', many, '', alice.auth)
      t.equal(
        (await del('link', link, '', alice.auth)).statusCode,
        200,
        'documents linking to it that are soft-deleted do not count'
      )
    })

    await t.test('_cascade=1 soft-deletes the linking documents', async t => {
      const link = await post('link', { name: 'c' }, alice.auth)
      const a = await post('test', { foo: 'a', link_id: link }, alice.auth)
      const b = await post('test', { foo: 'b', other_link_id: link }, alice.auth)
      const other = await post('test', { foo: 'unrelated' }, alice.auth)
      const res = await del('link', link, '?_cascade=1', alice.auth)
      t.same(json(res), { status: 'ok', message: `link/${link} deleted` })
      t.same(await Promise.all([stored('link', link), stored('test', a), stored('test', b), stored('test', other)]), [
        true,
        true,
        true,
        false
      ])
      t.equal((await del('link', link, '?_permaDelete=1&_cascade=1', alice.auth)).statusCode, 200)
      t.same(
        await Promise.all([stored('link', link), stored('test', a)]),
        ['gone', 'gone'],
        'a permanent cascade of a soft-deleted document removes it and what linked to it'
      )
    })

    await t.test('_permaDelete=1 removes for good', async t => {
      const doc = await post('test', { foo: 'perm' }, alice.auth)
      t.same(
        json(await del('test', doc, '?_permaDelete=1', alice.auth)),
        { status: 'ok', message: `test/${doc} deleted` },
        "by its owner (the model's perms give owners d)"
      )
      t.equal(await stored('test', doc), 'gone')
      t.equal((await del('test', doc, '?_permaDelete=1', alice.auth)).statusCode, 404, 'a second time: 404')
      const link = await post('link', { name: 'p' }, alice.auth)
      await post('test', { foo: 'holds', link_id: link }, alice.auth)
      t.equal((await del('link', link, '?_permaDelete=true', alice.auth)).statusCode, 409, 'still refused while linked')
      t.equal(await stored('link', link), false)
    })

    await t.test('a cascade never reaches documents the caller may not delete', async t => {
      const link = await post('link', { name: "bob's" }, bob.auth)
      const alices = await post('test', { foo: 'alice links to bob', link_id: link }, alice.auth)
      const res = await del('link', link, '?_cascade=1', bob.auth)
      t.equal(res.statusCode, 403)
      t.match(json(res), { code: 'FORBIDDEN', message: /Cannot cascade into test\/link_id/ })
      t.same(await Promise.all([stored('link', link), stored('test', alices)]), [false, false], 'nothing changed')
      t.equal((await del('link', link, '?_cascade=1&_permaDelete=1', bob.auth)).statusCode, 403, 'nor permanently')
      t.equal((await del('link', link, '?_cascade=1', admin)).statusCode, 200, 'an admin may')
      t.equal(await stored('test', alices), true)
    })

    await t.test('who may delete, and misspelled flags', async t => {
      const doc = await post('test', { foo: 'mine' }, alice.auth)
      t.equal((await del('test', doc, '?_permaDelete=1')).statusCode, 401, 'anonymous')
      t.equal((await del('test', doc, '?_permaDelete=1', bob.auth)).statusCode, 403, 'another user, who may read it')
      t.equal(
        (await del('test', doc, '?_permadelete=1', alice.auth)).statusCode,
        400,
        'a misspelled flag is a 400, never a different delete'
      )
      t.equal((await del('test', doc, '?_permaDelete=maybe', alice.auth)).statusCode, 400)
      t.equal(await stored('test', doc), false, 'nothing happened')
      const res = await app.inject({
        method: 'DELETE',
        url: `/api/test/${doc}?_=${Date.now()}`,
        headers: { authorization: alice.auth, 'content-type': 'application/json' }
      })
      t.equal(res.statusCode, 200, 'a JSON content type with an empty body and a cache buster: fine')
    })
  })
}
