// What JXP's clients and front ends send, accepted on every engine: empty JSON bodies
// on DELETE, logout and refresh; JXP's other route names; a document read back and PUT
// unchanged; null (and "" on a link) clearing a field; forms with nested keys; JXP's
// literal strings; jxp-helper's apikey=undefined. Each was a 400 before.
import t from 'tap'
import { ENGINES, createTestApp } from '../../helpers/test-app.ts'
import { TEST_SETTINGS, bearer, login } from '../../helpers/auth-helpers.ts'
import { ENDPOINT_LIMITS } from '../../../plugins/endpoint-limits.ts'

const FORM = 'application/x-www-form-urlencoded'
const JSON_TYPE = 'application/json'

for (const engine of ENGINES) {
  t.test(`JXP clients' habits on ${engine}`, async t => {
    const { app, admin, createUser } = await createTestApp(t, engine, TEST_SETTINGS)
    const alice = await createUser('alice@example.com', 'alice-password')
    const bob = await createUser('bob@example.com', 'bob-password')
    const json = (res: { body: string }) => JSON.parse(res.body)
    type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'
    const send = (method: Method, url: string, headers: Record<string, string> = {}, payload?: string | object) =>
      app.inject({ method, url, headers, ...(payload !== undefined && { payload }) })
    const create = async (payload: object, authorization = alice.auth): Promise<Record<string, any>> => {
      const res = await send('POST', '/api/test', { authorization }, payload)
      t.equal(res.statusCode, 200, res.body)
      return json(res).data
    }

    await t.test("empty JSON bodies, and JXP's other names of the session routes", async t => {
      const session = await login(app, 'alice@example.com', 'alice-password')
      t.equal((await send('GET', '/api/link', bearer(session.token))).statusCode, 200)
      const refreshed = await send(
        'POST',
        '/refresh',
        { ...bearer(session.refresh_token), 'content-type': JSON_TYPE },
        ''
      )
      t.equal(refreshed.statusCode, 200, 'POST /refresh with a JSON content type and no body')
      const again = await send(
        'POST',
        '/login/refresh',
        { ...bearer(json(refreshed).refresh_token), 'content-type': JSON_TYPE },
        ''
      )
      t.match(
        [again.statusCode, json(again)],
        [200, { status: 'ok', token: String, refresh_token: String }],
        'POST /login/refresh'
      )
      t.equal(
        (await send('POST', '/login/refresh', { ...bearer(json(refreshed).refresh_token) })).statusCode,
        401,
        'a rotated refresh token is dead there too'
      )
      t.equal((await send('POST', '/login/refresh')).statusCode, 401, 'no token: 401')
      const token = json(again).token
      t.same(
        json(await send('POST', '/login/logout', { ...bearer(token), 'content-type': JSON_TYPE }, '')),
        { status: 'ok', message: 'Logged out' },
        'POST /login/logout, empty JSON body'
      )
      t.equal((await send('GET', '/api/link', bearer(token))).statusCode, 401, 'the token died')
      for (const method of ['GET', 'POST'] as const) {
        const fresh = await login(app, 'alice@example.com', 'alice-password')
        t.equal(
          (
            await send(
              method,
              '/logout',
              { ...bearer(fresh.token), ...(method === 'POST' && { 'content-type': JSON_TYPE }) },
              method === 'POST' ? '' : undefined
            )
          ).statusCode,
          200,
          `${method} /logout`
        )
        t.equal((await send('GET', '/api/link', bearer(fresh.token))).statusCode, 401, 'ends the session')
      }
      t.equal((await send('GET', '/logout')).statusCode, 401, 'anonymous: nothing to log out')
      t.equal(
        (await send('POST', '/api/test', { authorization: alice.auth, 'content-type': JSON_TYPE }, '')).statusCode,
        400,
        'a create still needs its body'
      )
    })

    await t.test('read-edit-write', async t => {
      const link = json(await send('POST', '/api/link', { authorization: alice.auth }, { name: 'l' })).data._id
      const doc = await create({ foo: 'mine', link_id: link })
      const read = json(await send('GET', `/api/test/${doc._id}?populate=link`, { authorization: alice.auth })).data
      t.equal(read._owner_id, alice.id)
      const written = await send(
        'PUT',
        `/api/test/${doc._id}`,
        { authorization: alice.auth },
        { ...read, bar: 'edited' }
      )
      t.equal(written.statusCode, 200, `the document read (populated) and PUT back by its owner: ${written.body}`)
      t.match(json(written).data, { bar: 'edited', _owner_id: alice.id, link_id: link, __v: 1 })
      t.notOk('link' in json(written).data, 'a populated link is not stored')
      const taken = await send(
        'PUT',
        `/api/test/${doc._id}`,
        { authorization: alice.auth },
        { ...read, _owner_id: bob.id }
      )
      t.equal(taken.statusCode, 403, 'a different _owner_id is still a change only admins make')
      t.match(json(taken), { message: /only an admin can change it/ })
      const bobs = await create({ foo: "bob's" }, bob.auth)
      t.equal(
        (await send('PUT', `/api/test/${bobs._id}`, { authorization: alice.auth }, { ...bobs, _owner_id: alice.id }))
          .statusCode,
        403,
        'nor does claiming one gain a right'
      )
      t.equal(
        (await send('PUT', `/api/test/${doc._id}`, { authorization: alice.auth }, { _owner_id: 'me' })).statusCode,
        400,
        'an _owner_id that is not an id'
      )
      t.equal(json(await send('GET', `/api/test/${doc._id}`)).data.bar, 'edited', 'unchanged by the refused writes')
      const copy = await send('POST', '/api/test', { authorization: alice.auth }, { ...read, foo: 'copy' })
      t.equal(copy.statusCode, 200, `a document read back and POSTed makes a new one: ${copy.body}`)
      t.not(json(copy).data._id, doc._id)
      t.equal(
        (await send('POST', '/update/test/' + doc._id, { authorization: alice.auth }, { bar: 'legacy' })).statusCode,
        200,
        "POST /update/{model}/{id}, JXP's older PUT"
      )
      t.equal(json(await send('GET', `/api/test/${doc._id}`)).data.bar, 'legacy')
      t.equal(
        (await send('POST', '/update/test/' + doc._id, { authorization: bob.auth }, { bar: 'x' })).statusCode,
        403,
        "with PUT's permissions"
      )
    })

    await t.test('null clears a field, and "" a link', async t => {
      const link = json(await send('POST', '/api/link', { authorization: alice.auth }, { name: 'n' })).data._id
      const doc = await create({ foo: 'f', bar: 'b', link_id: link, array_link_id: [link], yack: { s: 's', n: 1 } })
      const cleared = await send(
        'PUT',
        `/api/test/${doc._id}`,
        { authorization: alice.auth },
        { bar: null, yack: null, link_id: '', array_link_id: '' }
      )
      t.equal(cleared.statusCode, 200, cleared.body)
      t.match(json(cleared).data, { foo: 'f', bar: null, yack: null, link_id: null, array_link_id: [] })
      t.equal(
        json(await send('GET', `/api/test?filter[bar]=null&filter[foo]=f`)).count,
        1,
        'and a null filter finds it'
      )
      t.equal(
        (await send('PUT', `/api/test/${doc._id}`, { authorization: alice.auth }, { password: null })).statusCode,
        400,
        'a password cannot be null'
      )
      t.equal(
        (await send('PUT', `/api/user/${alice.id}`, { authorization: admin }, { email: null })).statusCode,
        400,
        'nor a required field'
      )
      t.equal(
        (
          await send(
            'PUT',
            `/api/test/${doc._id}`,
            { authorization: alice.auth, 'content-type': FORM },
            'link_id=&foo=g'
          )
        ).statusCode,
        200,
        'an empty link in a form'
      )
    })

    await t.test('forms with nested keys', async t => {
      const res = await send(
        'POST',
        '/api/test',
        { authorization: alice.auth, 'content-type': FORM },
        'foo=form&yack[s]=x&yack[n]=3&shmack[0]=a&shmack[1]=b'
      )
      t.equal(res.statusCode, 200, res.body)
      t.match(
        json(res).data,
        { foo: 'form', yack: { s: 'x', n: 3 }, shmack: ['a', 'b'] },
        'objects and indexed arrays, values coerced by the schema'
      )
      t.match(
        json(
          await send('POST', '/api/test', { authorization: alice.auth, 'content-type': FORM }, 'shmack[]=c&shmack[]=d')
        ).data,
        { shmack: ['c', 'd'] },
        'shmack[]='
      )
      const id = json(res).data._id
      await send('DELETE', `/api/test/${id}`, { authorization: alice.auth })
      const restored = await send(
        'PUT',
        `/api/test/${id}`,
        { authorization: alice.auth, 'content-type': FORM },
        '_deleted=false'
      )
      t.match([restored.statusCode, json(restored).data?._deleted], [200, false], 'a form _deleted=false restores')
      const deep = await send(
        'POST',
        '/api/test',
        { authorization: alice.auth, 'content-type': FORM },
        'yack[a][b][c][d][e][f][g][h][i][j]=1'
      )
      t.match([deep.statusCode, json(deep).code], [400, 'INVALID_BODY'], 'deeper than 8 levels: 400')
      const infinite = await send(
        'POST',
        '/api/test',
        { authorization: alice.auth, 'content-type': FORM },
        'foo=inf&yack[n]=1e400'
      )
      t.match(
        [infinite.statusCode, json(infinite).code],
        [400, 'VALIDATION_FAILED'],
        'a number beyond float8 (Infinity) is refused, not stored as null'
      )
      const polluting = await send(
        'POST',
        '/api/test',
        { authorization: alice.auth, 'content-type': FORM },
        '__proto__[admin]=true&foo=p'
      )
      t.match(
        [polluting.statusCode, json(polluting).code],
        [400, 'INVALID_BODY'],
        'a prototype key is refused, not dropped from the document'
      )
      t.equal(({} as Record<string, unknown>).admin, undefined, 'and pollutes nothing')
    })

    await t.test("JXP's literal strings in /query and /aggregate", async t => {
      const doc = await create({ foo: 'dated' })
      const query = async (filter: object) => send('POST', '/query/test', {}, { query: filter })
      t.equal(json(await query({ _id: `ObjectId("${doc._id}")` })).count, 1, 'ObjectId(...)')
      t.equal(
        json(
          await query({
            foo: 'dated',
            createdAt: { $gte: 'relative_date(-1, "hours")', $lt: 'new Date("2999-01-01")' }
          })
        ).count,
        1,
        'relative_date and new Date'
      )
      t.equal(json(await query({ foo: 'dated', createdAt: { $lt: 'relative_date(-1, "hours")' } })).count, 0)
      const bad = await query({ createdAt: { $gt: 'new Date("soon")' } })
      t.match([bad.statusCode, json(bad).code], [400, 'INVALID_QUERY'], 'a literal that does not parse: 400')
      const pipeline = [
        { $match: { _id: `ObjectId("${doc._id}")`, createdAt: { $gte: 'relative_date(0, "days", "year")' } } },
        { $project: { _id: 0, foo: 1 } }
      ]
      t.same(
        json(await send('POST', '/aggregate/test?allowDiskUse=true&_=17', {}, { query: pipeline })),
        { data: [{ foo: 'dated' }] },
        'in a pipeline, with allowDiskUse and a cache buster'
      )
      t.equal(
        (await send('POST', '/aggregate/test?allowdiskuse=true', {}, pipeline)).statusCode,
        400,
        'a misspelled parameter'
      )
      t.equal(
        (await send('POST', '/aggregate/test?showDeleted=1', {}, pipeline)).statusCode,
        403,
        'showDeleted=1 is showDeleted'
      )
    })

    await t.test("POST /login/refresh has /refresh's request limit", async t => {
      const { app: limited } = await createTestApp(t, engine, { loginRateLimit: 1 })
      const refresh = (url: string) =>
        limited.inject({ method: 'POST', url, headers: bearer('qrt_unknown'), remoteAddress: '10.9.9.9' })
      for (let i = 0; i < ENDPOINT_LIMITS.refresh; i++) t.equal((await refresh('/login/refresh')).statusCode, 401)
      const over = await refresh('/login/refresh')
      t.same([over.statusCode, json(over).code], [429, 'RATE_LIMITED'], 'then 429')
      t.equal((await refresh('/refresh')).statusCode, 401, '/refresh keeps its own bucket')
    })

    await t.test('jxp-helper without a key: apikey=undefined is anonymous', async t => {
      t.equal((await send('GET', '/api/test?apikey=undefined')).statusCode, 200)
      t.equal(
        (await send('POST', '/api/test?apikey=undefined', {}, { foo: 'x' })).statusCode,
        401,
        'and may do what anonymous callers may'
      )
      t.equal((await send('GET', '/api/test?apikey=qak_nope')).statusCode, 401, 'a wrong key is still a 401')
    })
  })
}
