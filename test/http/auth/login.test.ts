// Login, refresh, logout and every credential type (Basic, Bearer, API key in
// the query, the apikey and X-API-Key headers, ?jwt= and GET /login/jwt), with
// the expiry of each on a controlled clock, on every engine.
import t from 'tap'
import { wideEngines, basicAuth, createTestApp } from '../../helpers/test-app.ts'
import { TEST_SETTINGS, advanceClock, bearer, json, login } from '../../helpers/auth-helpers.ts'

const HOUR = 3600_000
const ADMIN = { email: 'admin@example.com', password: 'admin-password' }

for (const engine of wideEngines()) {
  t.test(engine, async t => {
    const { app, createUser } = await createTestApp(t, engine, TEST_SETTINGS)
    const alice = await createUser('alice@example.com', 'alice-password')
    const whoAmI = async (
      headers: Record<string, string>,
      query = ''
    ): Promise<{ status: number; body: Record<string, any> }> => {
      const res = await app.inject({ method: 'GET', url: `/api/user/${alice.id}${query}`, headers })
      return { status: res.statusCode, body: json(res) }
    }

    t.test('POST /login answers the spec shape', async t => {
      const res = await app.inject({
        method: 'POST',
        url: '/login',
        payload: { email: 'Alice@Example.com', password: 'alice-password' }
      })
      t.equal(res.statusCode, 200)
      const body = json(res)
      t.same(Object.keys(body).sort(), [
        'apikey',
        'provider',
        'refresh_token',
        'refresh_token_expires',
        'status',
        'token',
        'token_expires',
        'user_id'
      ])
      t.equal(body.user_id, alice.id)
      t.match(body.token, /^qat_[A-Za-z0-9_-]{43}$/)
      t.match(body.refresh_token, /^qrt_[A-Za-z0-9_-]{43}$/)
      t.match(body.apikey, /^qak_[A-Za-z0-9_-]{43}$/)
      t.match(body.token_expires, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      const ttl = Date.parse(body.token_expires) - Date.now()
      t.ok(ttl > 23.9 * HOUR && ttl <= 24 * HOUR, 'token lives 24 hours')
      const refreshTtl = Date.parse(body.refresh_token_expires) - Date.now()
      t.ok(refreshTtl > 29.9 * 24 * HOUR && refreshTtl <= 30 * 24 * HOUR, 'refresh token lives 30 days')
    })

    t.test('login with a Basic header or a form', async t => {
      const basic = await app.inject({
        method: 'POST',
        url: '/login',
        headers: { authorization: basicAuth('alice@example.com', 'alice-password') }
      })
      t.equal(basic.statusCode, 200)
      const form = await app.inject({
        method: 'POST',
        url: '/login',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'email=alice%40example.com&password=alice-password'
      })
      t.equal(form.statusCode, 200)
      t.equal(json(form).user_id, alice.id)
    })

    t.test('login failures are 401 with the spec body', async t => {
      const cases: Array<[unknown, string]> = [
        [{ email: 'nobody@example.com', password: 'x' }, 'Incorrect email: nobody@example.com'],
        [{ email: 'alice@example.com', password: 'wrong' }, 'Incorrect password'],
        [{}, 'Send email and password (as JSON, a form or a Basic authorization header)']
      ]
      for (const [payload, err] of cases) {
        const res = await app.inject({ method: 'POST', url: '/login', payload: payload as object })
        t.equal(res.statusCode, 401)
        t.same(json(res), { status: 'fail', code: 'AUTH_FAILED', message: 'Authentication failed', err })
      }
      const badType = await app.inject({ method: 'POST', url: '/login', payload: { email: 5, password: ['x'] } })
      t.equal(badType.statusCode, 400)
      t.equal(json(badType).code, 'INVALID_BODY')
      const huge = await app.inject({
        method: 'POST',
        url: '/login',
        payload: { email: 'a'.repeat(300), password: 'x' }
      })
      t.equal(huge.statusCode, 400)
      t.equal(json(huge).code, 'INVALID_BODY')
    })

    t.test('a new login deletes the previous token; the API key stays', async t => {
      const first = await login(app, 'alice@example.com', 'alice-password')
      t.equal((await whoAmI(bearer(first.token))).status, 200)
      const second = await login(app, 'alice@example.com', 'alice-password')
      const old = await whoAmI(bearer(first.token))
      t.equal(old.status, 401)
      t.same(old.body, { status: 'fail', code: 'AUTH_FAILED', message: 'Authentication failed', err: 'Invalid token' })
      t.equal((await whoAmI(bearer(second.token))).status, 200)
      t.equal(second.apikey, first.apikey, 'the permanent API key is returned again')
      const refreshOld = await app.inject({ method: 'POST', url: '/refresh', headers: bearer(first.refresh_token) })
      t.equal(refreshOld.statusCode, 401, 'the previous refresh token died too')
    })

    t.test('every credential type authenticates', async t => {
      const { apikey } = await login(app, 'alice@example.com', 'alice-password')
      const { jwt } = json(
        await app.inject({
          method: 'POST',
          url: '/login/getjwt',
          headers: { authorization: basicAuth(ADMIN.email, ADMIN.password) },
          payload: { email: 'alice@example.com' }
        })
      )
      const ways: Array<[string, Record<string, string>, string]> = [
        ['Basic', { authorization: alice.auth }, ''],
        ['apikey query parameter', {}, `?apikey=${apikey}`],
        ['apikey header', { apikey }, ''],
        ['X-API-Key header', { 'x-api-key': apikey }, ''],
        ['jwt query parameter', {}, `?jwt=${jwt}`]
      ]
      for (const [name, headers, query] of ways) {
        const res = await whoAmI(headers, query)
        t.equal(res.status, 200, name)
        t.equal(res.body.data?.email, 'alice@example.com', name)
      }
      const list = await app.inject({ method: 'GET', url: `/api/user?apikey=${apikey}&limit=5` })
      t.equal(json(list).count, 1, 'the apikey parameter is not taken for a filter; alice sees only herself')
    })

    t.test('presented credentials that fail are 401, never anonymous', async t => {
      const cases: Array<[string, Record<string, string>, string, string]> = [
        ['bad token', bearer('qat_nope'), '', 'Invalid token'],
        ['bad API key', { apikey: 'qak_nope' }, '', 'Invalid API key'],
        ['bad API key parameter', {}, '?apikey=', 'Invalid API key'],
        ['bad JWT', {}, '?jwt=abc.def.ghi', 'Invalid JWT'],
        ['wrong Basic password', { authorization: basicAuth('alice@example.com', 'nope') }, '', 'Incorrect password'],
        ['malformed Basic', { authorization: 'Basic !!!' }, '', 'Malformed Basic credentials'],
        ['empty bearer', { authorization: 'Bearer ' }, '', 'Empty bearer token'],
        ['unknown scheme', { authorization: 'Digest x' }, '', 'Unsupported authorization scheme'],
        [
          'two credentials',
          { authorization: alice.auth, apikey: 'qak_x' },
          '',
          'Present only one credential per request'
        ],
        ['apikey twice', {}, '?apikey=a&apikey=b', 'apikey is given more than once']
      ]
      for (const [name, headers, query, err] of cases) {
        const res = await app.inject({ method: 'GET', url: `/api/link${query}`, headers })
        t.equal(res.statusCode, 401, name)
        t.same(json(res), { status: 'fail', code: 'AUTH_FAILED', message: 'Authentication failed', err }, name)
      }
    })

    t.test('Basic headers are parsed by RFC 7617 (@fastify/basic-auth)', async t => {
      const header = (pair: string, scheme = 'Basic '): Record<string, string> => ({
        authorization: scheme + Buffer.from(pair).toString('base64')
      })
      const refused: Array<[string, Record<string, string>]> = [
        ['a control character', header('alice@example.com:alice-\u0001password')],
        ['no user', header(':alice-password')],
        ['no colon', header('alice@example.com')]
      ]
      for (const [name, headers] of refused) {
        const res = await whoAmI(headers)
        t.equal(res.status, 401, name)
        t.same(
          res.body,
          { status: 'fail', code: 'AUTH_FAILED', message: 'Authentication failed', err: 'Malformed Basic credentials' },
          name
        )
      }
      t.equal(
        (await whoAmI(header('alice@example.com:alice-password', 'basic  '))).status,
        200,
        'any case, extra spaces'
      )
      const session = await app.inject({
        method: 'POST',
        url: '/login',
        headers: header('alice@example.com:alice-password')
      })
      t.equal(session.statusCode, 200, 'POST /login takes the same header')
      t.equal(json(session).user_id, alice.id)
      const wrong = await app.inject({ method: 'POST', url: '/login', headers: header('alice@example.com:nope') })
      t.same(json(wrong), {
        status: 'fail',
        code: 'AUTH_FAILED',
        message: 'Authentication failed',
        err: 'Incorrect password'
      })
    })

    t.test('refresh rotates the refresh token and works after the token expired', async t => {
      const session = await login(app, 'alice@example.com', 'alice-password')
      advanceClock(app, 25 * HOUR)
      const expired = await whoAmI(bearer(session.token))
      t.equal(expired.status, 401)
      t.equal(expired.body.err, 'Token expired')
      t.equal((await whoAmI(bearer(session.token))).body.err, 'Invalid token', 'the expired token was purged')
      const res = await app.inject({ method: 'POST', url: '/refresh', headers: bearer(session.refresh_token) })
      t.equal(res.statusCode, 200)
      const fresh = json(res)
      t.same(Object.keys(fresh).sort(), [
        'provider',
        'refresh_token',
        'refresh_token_expires',
        'status',
        'token',
        'token_expires',
        'user_id'
      ])
      t.equal(fresh.user_id, alice.id)
      t.not(fresh.refresh_token, session.refresh_token)
      t.equal((await whoAmI(bearer(fresh.token))).status, 200)
      const reused = await app.inject({ method: 'POST', url: '/refresh', headers: bearer(session.refresh_token) })
      t.equal(reused.statusCode, 401, 'a used refresh token stops working')
      t.same(json(reused), {
        status: 'fail',
        code: 'AUTH_FAILED',
        message: 'Authentication failed',
        err: 'Invalid refresh token'
      })
      const asToken = await whoAmI(bearer(fresh.refresh_token))
      t.equal(asToken.body.err, 'A refresh token is accepted only by POST /refresh')
      const withAccessToken = await app.inject({ method: 'POST', url: '/refresh', headers: bearer(fresh.token) })
      t.equal(json(withAccessToken).err, 'Not a refresh token')
      const missing = await app.inject({ method: 'POST', url: '/refresh' })
      t.equal(missing.statusCode, 401)
      advanceClock(app, 31 * 24 * HOUR)
      const late = await app.inject({ method: 'POST', url: '/refresh', headers: bearer(fresh.refresh_token) })
      t.equal(late.statusCode, 401)
      t.equal(json(late).err, 'Refresh token expired')
    })

    t.test('logout destroys the token at once (GET and POST)', async t => {
      for (const method of ['GET', 'POST'] as const) {
        const session = await login(app, 'alice@example.com', 'alice-password')
        const res = await app.inject({ method, url: '/login/logout', headers: bearer(session.token) })
        t.equal(res.statusCode, 200)
        t.same(json(res), { status: 'ok', message: 'Logged out' })
        t.equal((await whoAmI(bearer(session.token))).status, 401)
        const refresh = await app.inject({ method: 'POST', url: '/refresh', headers: bearer(session.refresh_token) })
        t.equal(refresh.statusCode, 401, 'the refresh token died with it')
        t.equal((await whoAmI({ apikey: session.apikey })).status, 200, 'the API key is permanent')
      }
      const anonymous = await app.inject({ method: 'POST', url: '/login/logout' })
      t.equal(anonymous.statusCode, 401)
      t.equal(json(anonymous).code, 'AUTH_REQUIRED')
    })

    t.test('login links: getjwt (admins only), ?jwt= and GET /login/jwt', async t => {
      const admin = { authorization: basicAuth(ADMIN.email, ADMIN.password) }
      const minted = await app.inject({
        method: 'POST',
        url: '/login/getjwt',
        headers: admin,
        payload: { email: 'ALICE@example.com' }
      })
      t.equal(minted.statusCode, 200)
      t.same(Object.keys(json(minted)).sort(), ['email', 'jwt', 'status', 'token'], "JXP's email and token too")
      t.same([json(minted).email, json(minted).token], ['alice@example.com', json(minted).jwt])
      const { jwt } = json(minted)
      const exchanged = await app.inject({ method: 'GET', url: `/login/jwt?jwt=${jwt}` })
      t.equal(exchanged.statusCode, 200)
      const session = json(exchanged)
      t.equal(session.user_id, alice.id)
      t.equal((await whoAmI(bearer(session.token))).status, 200)
      const unknown = await app.inject({
        method: 'POST',
        url: '/login/getjwt',
        headers: admin,
        payload: { email: 'nobody@example.com' }
      })
      t.equal(unknown.statusCode, 403)
      t.same(json(unknown), { status: 'fail', code: 'FORBIDDEN', message: 'Unauthorized', err: 'Could not find email' })
      const byUser = await app.inject({
        method: 'POST',
        url: '/login/getjwt',
        headers: { authorization: alice.auth },
        payload: { email: 'alice@example.com' }
      })
      t.equal(byUser.statusCode, 403)
      const byNobody = await app.inject({
        method: 'POST',
        url: '/login/getjwt',
        payload: { email: 'alice@example.com' }
      })
      t.equal(byNobody.statusCode, 401)
      const missing = await app.inject({ method: 'GET', url: '/login/jwt' })
      t.equal(missing.statusCode, 400)
      const tampered = jwt.slice(0, -3) + (jwt.endsWith('AAA') ? 'BBB' : 'AAA')
      t.equal((await whoAmI({}, `?jwt=${tampered}`)).body.err, 'Invalid JWT')
      advanceClock(app, 3601_000)
      const expired = await whoAmI({}, `?jwt=${jwt}`)
      t.equal(expired.status, 401)
      t.equal(expired.body.err, 'JWT expired')
    })
  })
}
