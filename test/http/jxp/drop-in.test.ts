// What a JXP deployment needs that Quire lacked, for every deployment (issue 35): `provider` in
// login and refresh answers, /setup again once no user exists (the setup mark was permanent),
// POST /setup/data, users without a password, _updated_by_id on every write path, and JXP's
// browser routes (GET /, /docs/md, the docs session). Each failed before.
import t from 'tap'
import { ENGINES, createTestApp } from '../../helpers/test-app.ts'
import { TEST_SETTINGS, bearer, json, login } from '../../helpers/auth-helpers.ts'

for (const engine of ENGINES) {
  t.test(`JXP drop-in on ${engine}`, async t => {
    const { app, admin, createUser } = await createTestApp(t, engine, TEST_SETTINGS)
    const alice = await createUser('alice@example.com', 'alice-password')
    const send = (
      method: 'GET' | 'POST' | 'PUT' | 'DELETE',
      url: string,
      headers: Record<string, string> = {},
      payload?: object
    ) => app.inject({ method, url, headers, ...(payload !== undefined && { payload }) })

    await t.test("provider in login and refresh answers: the server's URL as the client reached it", async t => {
      const res = await send(
        'POST',
        '/login',
        { host: 'api.example.com:8080' },
        { email: 'alice@example.com', password: 'alice-password' }
      )
      t.equal(json(res).provider, 'http://api.example.com:8080')
      const refreshed = await send('POST', '/refresh', {
        ...bearer(json(res).refresh_token),
        host: 'api.example.com:8080'
      })
      t.equal(json(refreshed).provider, 'http://api.example.com:8080')
    })

    await t.test('_updated_by_id on create, PUT, soft delete and bulk writes', async t => {
      const created = json(await send('POST', '/api/test', { authorization: alice.auth }, { foo: 'by' })).data
      t.equal(created._updated_by_id, alice.id)
      const adminId = (await login(app, 'admin@example.com', 'admin-password')).user_id
      const put = json(
        await send(
          'PUT',
          `/api/test/${created._id}`,
          { authorization: admin },
          { foo: 'by admin', _updated_by_id: alice.id }
        )
      ).data
      t.equal(put._updated_by_id, adminId, 'PUT (a client cannot set it: sent back, it is ignored)')
      const byAdmin = json(
        await send('GET', `/api/test/${created._id}?populate=_updated_by`, { authorization: admin })
      ).data
      t.equal(byAdmin._updated_by?.email, 'admin@example.com', 'populate=_updated_by: the user')
      t.equal(byAdmin._updated_by?.password, undefined, 'without the password hash')
      const byAlice = json(
        await send('GET', `/api/test/${created._id}?populate=_updated_by`, { authorization: alice.auth })
      ).data
      t.equal(byAlice._updated_by ?? null, null, "a user who may not read the writer's record sees none")
      const bulk = await send('POST', '/bulkwrite/test', { authorization: alice.auth }, [
        { updateOne: { filter: { _id: created._id }, update: { $set: { foo: 'bulk' } } } }
      ])
      t.equal(bulk.statusCode, 200, bulk.body)
      t.equal(
        json(await send('GET', `/api/test/${created._id}`, { authorization: admin })).data._updated_by_id,
        alice.id,
        'bulk update'
      )
      const listed = json(
        await send('GET', `/api/test?filter[_id]=${created._id}&populate=_updated_by_id`, { authorization: alice.auth })
      ).data
      t.equal(listed[0]._updated_by?.email, 'alice@example.com', 'populate by the field name, in a list')
      await send('DELETE', `/api/test/${created._id}`, { authorization: admin })
      t.equal(
        json(await send('GET', `/api/test/${created._id}?showDeleted=1`, { authorization: admin })).data._updated_by_id,
        adminId,
        'soft delete'
      )
    })

    await t.test('a user without a password: created by an admin, cannot log in with any password', async t => {
      const res = await send(
        'POST',
        '/api/user',
        { authorization: admin },
        { email: 'invited@example.com', name: 'Invited' }
      )
      t.equal(res.statusCode, 200, res.body)
      const tried = await send('POST', '/login', {}, { email: 'invited@example.com', password: 'anything' })
      t.equal(tried.statusCode, 401)
    })

    await t.test('POST /setup/data: admins once users exist; users and documents seeded', async t => {
      const data = {
        users: [{ email: 'seed@example.com', password: 'seed-password', name: 'Seed' }],
        tests: [{ foo: 'seeded' }]
      }
      t.equal((await send('POST', '/setup/data', {}, data)).statusCode, 401, 'anonymous while users exist')
      t.equal((await send('POST', '/setup/data', { authorization: alice.auth }, data)).statusCode, 403)
      const res = await send('POST', '/setup/data', { authorization: admin }, data)
      t.same(json(res), { status: 'ok', results: { users: { insertedCount: 1 }, tests: { insertedCount: 1 } } })
      t.equal((await login(app, 'seed@example.com', 'seed-password')).status, 'ok')
      t.equal(
        (await send('POST', '/setup/data', { authorization: admin }, { nothing: [{}] })).statusCode,
        404,
        'an unknown collection'
      )
      t.equal(
        (await send('POST', '/setup/data', { authorization: admin }, { tests: [{ nope: 1 }] })).statusCode,
        400,
        'checked as any write'
      )
    })

    await t.test('/setup works again once every user is gone (the setup mark no longer blocks it)', async t => {
      const users = json(await send('GET', '/api/user?limit=1000', { authorization: admin })).data as Array<{
        _id: string
        email: string
      }>
      const adminUser = users.find(u => u.email === 'admin@example.com')!
      for (const user of users.filter(u => u !== adminUser))
        await send('DELETE', `/api/user/${user._id}?_permaDelete=1`, { authorization: admin })
      t.equal(
        (await send('POST', '/setup', {}, { email: 'root@example.com', password: 'root-password' })).statusCode,
        409,
        'not while a user exists'
      )
      await send('DELETE', `/api/user/${adminUser._id}?_permaDelete=1`, { authorization: admin })
      const again = await send(
        'POST',
        '/setup',
        {},
        { email: 'root@example.com', password: 'root-password', name: 'Root' }
      )
      t.equal(again.statusCode, 200, again.body)
      t.match(json(again), { status: 'ok', data: { email: 'root@example.com', admin: true, name: 'Root' } })
      t.equal(
        (await send('POST', '/setup', {}, { email: 'other@example.com', password: 'other-password' })).statusCode,
        409
      )
    })

    await t.test("JXP's browser routes: GET /, guides, the docs session", async t => {
      await createUser('reader@example.com', 'reader-password')
      t.equal((await send('GET', '/')).statusCode, 200)
      t.equal((await send('GET', '/docs/md/api.md')).statusCode, 200)
      t.equal((await send('GET', '/docs/md/nothing.md')).statusCode, 404)
      const away = await send('GET', '/docs/api')
      t.equal(away.statusCode, 302)
      t.match(away.headers.location, /^\/docs\/login\?next=%2Fdocs%2Fapi/)
      t.equal((await send('GET', '/docs/session')).statusCode, 401)
      t.equal((await send('POST', '/docs/session', {}, { apikey: 'not-a-real-key' })).statusCode, 401)
      const { apikey } = await login(app, 'reader@example.com', 'reader-password')
      const session = await send('POST', '/docs/session', {}, { apikey })
      t.same(json(session), { ok: true })
      const cookie = String(session.headers['set-cookie']).split(';')[0]
      t.match(String(session.headers['set-cookie']), /HttpOnly; SameSite=Strict/)
      t.same(json(await send('GET', '/docs/session', { cookie })), { ok: true, apikey })
      const reference = await send('GET', '/docs/api', { cookie })
      t.equal(reference.statusCode, 200)
      t.match(reference.body, /API reference/)
      t.match(reference.body, /\/docs\/model\/test/)
      t.equal((await send('GET', '/docs/model/test', { cookie })).statusCode, 200)
      t.equal(
        (await send('GET', '/api/test', { cookie })).headers['jxp-cache'],
        undefined,
        'no cache without CACHE_ENABLED'
      )
    })
  })
}
