// API keys that can be revoked and rotated (by their user and by admins), the
// events that revoke them (password change, admin reset, recovery reset,
// deletion), the current-password rule, and single-purpose login links: a link
// from /login/getjwt logs in but never yields the key or resets a password; a
// recovery link only resets the password. On every engine.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { ENGINES, basicAuth, createTestApp } from '../../helpers/test-app.ts'
import { TEST_SETTINGS, bearer, json, lastRecoveryJwt, login, startSmtp } from '../../helpers/auth-helpers.ts'

type Headers = Record<string, string>

async function call(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  headers: Headers = {},
  payload?: object
): Promise<{ status: number; body: Record<string, any> }> {
  const res = await app.inject({ method, url, headers, ...(payload && { payload }) })
  return { status: res.statusCode, body: json(res) }
}

/** The status of a read of the user's own record with an API key. */
async function keyStatus(app: FastifyInstance, userId: string, apikey: string): Promise<number> {
  return (await call(app, 'GET', `/api/user/${userId}`, { apikey })).status
}

for (const engine of ENGINES) {
  t.test(engine, async t => {
    const smtp = await startSmtp(t)
    const { app, admin, createUser } = await createTestApp(t, engine, {
      ...TEST_SETTINGS,
      smtpUrl: `smtp://127.0.0.1:${smtp.port}`
    })
    const adminHeaders = { authorization: admin }
    const linkFor = async (email: string): Promise<string> =>
      json(await app.inject({ method: 'POST', url: '/login/getjwt', headers: adminHeaders, payload: { email } })).jwt

    t.test('a user revokes and rotates their own key', async t => {
      const alice = await createUser('alice@example.com', 'alice-password')
      const first = await login(app, 'alice@example.com', 'alice-password')
      const revoked = await call(app, 'DELETE', `/users/${alice.id}/apikey`, bearer(first.token))
      t.equal(revoked.status, 200)
      t.same(revoked.body, { status: 'ok', message: 'API key revoked: the next login issues a new one' })
      t.equal(await keyStatus(app, alice.id, first.apikey), 401, 'the revoked key stops working at once')
      t.equal((await call(app, 'GET', `/api/user/${alice.id}`, { apikey: first.apikey })).body.err, 'Invalid API key')
      const second = await login(app, 'alice@example.com', 'alice-password')
      t.not(second.apikey, first.apikey, 'the next login issues a new key')
      t.equal(await keyStatus(app, alice.id, second.apikey), 200)
      t.equal(
        (await login(app, 'alice@example.com', 'alice-password')).apikey,
        second.apikey,
        'later logins return it again'
      )

      const rotated = await call(app, 'POST', `/users/${alice.id}/apikey`, { apikey: second.apikey })
      t.equal(rotated.status, 200)
      t.same(Object.keys(rotated.body).sort(), ['apikey', 'message', 'status'])
      t.match(rotated.body.apikey, /^qak_[A-Za-z0-9_-]{43}$/)
      t.equal(await keyStatus(app, alice.id, second.apikey), 401, 'the rotated key dies')
      t.equal(await keyStatus(app, alice.id, rotated.body.apikey), 200)
      t.equal(
        (await login(app, 'alice@example.com', 'alice-password')).apikey,
        rotated.body.apikey,
        'login returns the rotated key'
      )
      t.equal(
        (await call(app, 'POST', `/users/${alice.id}/apikey`, { authorization: alice.auth })).status,
        200,
        'Basic may rotate too'
      )
    })

    t.test("admins revoke and rotate anyone's key; users only their own", async t => {
      const bob = await createUser('bob@example.com', 'bob-password')
      const carol = await createUser('carol@example.com', 'carol-password')
      const session = await login(app, 'bob@example.com', 'bob-password')
      t.equal(
        (await call(app, 'DELETE', `/users/${bob.id}/apikey`, { authorization: carol.auth })).status,
        403,
        "not another user's key"
      )
      t.equal((await call(app, 'POST', `/users/${bob.id}/apikey`, { authorization: carol.auth })).status, 403)
      const anonymous = await call(app, 'POST', `/users/${bob.id}/apikey`)
      t.equal(anonymous.status, 401)
      t.equal(anonymous.body.code, 'AUTH_REQUIRED')
      t.equal(await keyStatus(app, bob.id, session.apikey), 200, 'refused attempts changed nothing')
      const rotated = await call(app, 'POST', `/users/${bob.id}/apikey`, adminHeaders)
      t.equal(rotated.status, 200)
      t.equal(await keyStatus(app, bob.id, session.apikey), 401)
      t.equal(await keyStatus(app, bob.id, rotated.body.apikey), 200)
      t.equal((await call(app, 'DELETE', `/users/${bob.id}/apikey`, adminHeaders)).status, 200)
      t.equal(await keyStatus(app, bob.id, rotated.body.apikey), 401)
      t.equal((await call(app, 'DELETE', '/users/nope/apikey', adminHeaders)).status, 400)
      t.equal((await call(app, 'POST', '/users/0123456789abcdef01234567/apikey', adminHeaders)).status, 404)
      const never = await createUser('never@example.com', 'never-password')
      const fresh = await call(app, 'POST', `/users/${never.id}/apikey`, adminHeaders)
      t.equal(fresh.status, 200, 'a user who never logged in gets a key too')
      t.equal(await keyStatus(app, never.id, fresh.body.apikey), 200)
      t.equal((await login(app, 'never@example.com', 'never-password')).apikey, fresh.body.apikey)
    })

    t.test('a password change, an admin reset and a deletion revoke the key', async t => {
      const dan = await createUser('dan@example.com', 'dan-password')
      const before = await login(app, 'dan@example.com', 'dan-password')
      const own = await call(app, 'PUT', `/api/user/${dan.id}`, bearer(before.token), {
        password: 'dan-password-2',
        current_password: 'dan-password'
      })
      t.equal(own.status, 200)
      t.equal(await keyStatus(app, dan.id, before.apikey), 401, 'own password change')
      const second = await login(app, 'dan@example.com', 'dan-password-2')
      t.not(second.apikey, before.apikey)
      t.equal((await call(app, 'PUT', `/api/user/${dan.id}`, adminHeaders, { password: 'dan-password-3' })).status, 200)
      t.equal(await keyStatus(app, dan.id, second.apikey), 401, 'admin reset')
      const third = await login(app, 'dan@example.com', 'dan-password-3')
      t.equal((await call(app, 'PUT', `/api/user/${dan.id}`, adminHeaders, { name: 'Dan' })).status, 200)
      t.equal(await keyStatus(app, dan.id, third.apikey), 200, 'other changes leave the key alone')
      t.equal((await call(app, 'DELETE', `/api/user/${dan.id}`, adminHeaders)).status, 200)
      t.equal((await call(app, 'PUT', `/api/user/${dan.id}`, adminHeaders, { _deleted: false })).status, 200)
      t.equal(await keyStatus(app, dan.id, third.apikey), 401, 'a restored user does not get the old key back')
    })

    t.test('a recovery reset revokes the key; logout keeps it', async t => {
      const erin = await createUser('erin@example.com', 'erin-password')
      const session = await login(app, 'erin@example.com', 'erin-password')
      t.equal((await call(app, 'POST', '/login/logout', bearer(session.token))).status, 200)
      t.equal(await keyStatus(app, erin.id, session.apikey), 200, 'logout ends the session, not the permanent key')
      t.equal((await call(app, 'POST', '/login/recover', {}, { email: 'erin@example.com' })).status, 200)
      const reset = await call(
        app,
        'POST',
        '/login/reset',
        {},
        { jwt: lastRecoveryJwt(smtp.mails), password: 'erin-password-2' }
      )
      t.equal(reset.status, 200)
      t.equal(await keyStatus(app, erin.id, session.apikey), 401)
    })

    t.test('changing your own password needs the current one', async t => {
      const fay = await createUser('fay@example.com', 'fay-password')
      const session = await login(app, 'fay@example.com', 'fay-password')
      const missing = await call(app, 'PUT', `/api/user/${fay.id}`, bearer(session.token), { password: 'taken-over' })
      t.equal(missing.status, 403)
      t.equal(missing.body.code, 'CURRENT_PASSWORD_REQUIRED')
      const wrong = await call(
        app,
        'PUT',
        `/api/user/${fay.id}`,
        { apikey: session.apikey },
        { password: 'taken-over', current_password: 'guess' }
      )
      t.equal(wrong.status, 403)
      t.equal(wrong.body.code, 'CURRENT_PASSWORD_REQUIRED')
      t.equal(
        (await call(app, 'GET', `/api/user/${fay.id}`, { authorization: basicAuth('fay@example.com', 'fay-password') }))
          .status,
        200,
        'the password did not change'
      )
      t.equal(await keyStatus(app, fay.id, session.apikey), 200, 'nor did the key')
      const named = await call(app, 'PUT', `/api/user/${fay.id}`, bearer(session.token), { name: 'Fay' })
      t.equal(named.status, 200, 'other fields need no password')
      const form = await app.inject({
        method: 'PUT',
        url: `/api/user/${fay.id}`,
        headers: { ...bearer(session.token), 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'password=fay-password-2&current_password=fay-password'
      })
      t.equal(form.statusCode, 200, 'a form with current_password')
      t.notOk('current_password' in json(form).data, 'current_password is not stored')
      const basic = await call(
        app,
        'PUT',
        `/api/user/${fay.id}`,
        { authorization: basicAuth('fay@example.com', 'fay-password-2') },
        { password: 'fay-password-3' }
      )
      t.equal(basic.status, 200, 'a Basic request has just proven the current password')
      const self = await createUser('root2@example.com', 'root2-password', { admin: true })
      const rootSession = await login(app, 'root2@example.com', 'root2-password')
      t.equal(
        (await call(app, 'PUT', `/api/user/${self.id}`, bearer(rootSession.token), { password: 'x-password' })).status,
        403,
        "an admin's own password too"
      )
      t.equal(
        (await call(app, 'PUT', `/api/user/${fay.id}`, bearer(rootSession.token), { password: 'fay-password-4' }))
          .status,
        200,
        "an admin resets another user's without it"
      )
    })

    t.test('wrong current passwords are rate limited per account', async t => {
      const limited = await createTestApp(t, engine, { loginRateLimit: 2 })
      const kim = await limited.createUser('kim@example.com', 'kim-password')
      const session = await login(limited.app, 'kim@example.com', 'kim-password')
      const change = async (current: string): Promise<number> =>
        (
          await call(limited.app, 'PUT', `/api/user/${kim.id}`, bearer(session.token), {
            password: 'kim-password-2',
            current_password: current
          })
        ).status
      t.equal(await change('guess-1'), 403)
      t.equal(await change('guess-2'), 403)
      t.equal(await change('kim-password'), 429, 'after the limit even the right one waits')
      t.equal(
        (await login(limited.app, 'kim@example.com', 'kim-password')).user_id,
        kim.id,
        'the password is unchanged'
      )
    })

    t.test('a login link logs in, but never yields the key, resets a password or manages credentials', async t => {
      const gus = await createUser('gus@example.com', 'gus-password')
      const session = await login(app, 'gus@example.com', 'gus-password')
      const jwt = await linkFor('gus@example.com')
      t.equal((await call(app, 'GET', `/api/user/${gus.id}?jwt=${jwt}`)).status, 200, '?jwt= logs in')
      const exchanged = await call(app, 'GET', `/login/jwt?jwt=${jwt}`)
      t.equal(exchanged.status, 200)
      t.same(
        Object.keys(exchanged.body).sort(),
        ['provider', 'refresh_token', 'refresh_token_expires', 'status', 'token', 'token_expires', 'user_id'],
        'no apikey'
      )
      t.notOk(JSON.stringify(exchanged.body).includes(session.apikey))
      const linked = bearer(exchanged.body.token)
      t.equal((await call(app, 'GET', `/api/user/${gus.id}`, linked)).status, 200, "the link's session logs in")
      const refused = async (name: string, headers: Headers, query: string): Promise<void> => {
        const rotate = await call(app, 'POST', `/users/${gus.id}/apikey${query}`, headers)
        t.equal(rotate.status, 403, `${name}: cannot rotate the key`)
        t.notOk('apikey' in rotate.body)
        t.equal(
          (await call(app, 'DELETE', `/users/${gus.id}/apikey${query}`, headers)).status,
          403,
          `${name}: cannot revoke it`
        )
        const change = await call(app, 'PUT', `/api/user/${gus.id}${query}`, headers, {
          password: 'new-password',
          current_password: 'gus-password'
        })
        t.equal(change.status, 403, `${name}: cannot change the password`)
      }
      await refused('?jwt=', {}, `?jwt=${jwt}`)
      await refused('link session', linked, '')
      const refreshed = await call(app, 'POST', '/refresh', bearer(exchanged.body.refresh_token))
      t.equal(refreshed.status, 200)
      t.equal((await call(app, 'GET', `/api/user/${gus.id}`, bearer(refreshed.body.token))).status, 200)
      await refused('refreshed link session', bearer(refreshed.body.token), '')
      t.equal(await keyStatus(app, gus.id, session.apikey), 200, 'the key is untouched')
      const reset = await call(app, 'POST', '/login/reset', {}, { jwt, password: 'new-password' })
      t.equal(reset.status, 401, 'a login link cannot reset the password')
      t.equal(reset.body.code, 'AUTH_FAILED')
      t.equal(
        (await call(app, 'GET', `/api/user/${gus.id}`, { authorization: gus.auth })).status,
        200,
        'the password is unchanged'
      )
    })

    t.test("an admin's login link cannot mint links or set passwords", async t => {
      const jwt = await linkFor('admin@example.com')
      const minted = await call(app, 'POST', `/login/getjwt?jwt=${jwt}`, {}, { email: 'gus@example.com' })
      t.equal(minted.status, 403)
      t.notOk('jwt' in minted.body)
      const created = await call(
        app,
        'POST',
        `/api/user?jwt=${jwt}`,
        {},
        { email: 'mallory@example.com', password: 'mallory-password' }
      )
      t.equal(created.status, 403, 'no new account with a password either')
      const hal = await createUser('hal@example.com', 'hal-password')
      t.equal(
        (await call(app, 'PUT', `/api/user/${hal.id}?jwt=${jwt}`, {}, { password: 'owned-password' })).status,
        403
      )
      t.equal((await call(app, 'POST', `/users/${hal.id}/apikey?jwt=${jwt}`)).status, 403)
      t.equal((await call(app, 'GET', `/api/user/${hal.id}?jwt=${jwt}`)).status, 200, 'it still logs the admin in')
    })

    // Found by an audit: a link could change a user's email, and recovery then mailed a reset link
    // to the new address: a one-hour link became a lasting password (and an admin's, an admin).
    t.test("an admin's login link cannot change emails, roles or groups, nor create users", async t => {
      const jwt = await linkFor('admin@example.com')
      const ivy = await createUser('ivy@example.com', 'ivy-password')
      const put = async (fields: Record<string, unknown>): Promise<number> =>
        (await call(app, 'PUT', `/api/user/${ivy.id}?jwt=${jwt}`, {}, fields)).status
      t.equal(await put({ email: 'attacker@example.com' }), 403, 'not the email, where recovery mails its link')
      t.equal(await put({ admin: true }), 403, 'not the admin flag')
      t.equal(await put({ groups: ['staff'] }), 403, 'not the groups')
      t.equal(
        (await call(app, 'POST', `/api/user?jwt=${jwt}`, {}, { email: 'mallory@example.com' })).status,
        403,
        'no new account, even without a password'
      )
      t.equal(
        (await call(app, 'PUT', `/groups/${ivy.id}?jwt=${jwt}`, {}, { group: 'staff' })).status,
        403,
        'no groups through /groups'
      )
      t.equal(
        (await call(app, 'POST', `/users/${ivy.id}/groups?jwt=${jwt}`, {}, { group: 'staff' })).status,
        403,
        'nor through /users/{id}/groups'
      )
      t.equal((await call(app, 'DELETE', `/users/${ivy.id}/groups/staff?jwt=${jwt}`)).status, 403, 'nor removed')
      const record = await call(app, 'GET', `/api/user/${ivy.id}`, adminHeaders)
      t.match(record.body.data, { email: 'ivy@example.com', admin: false }, 'the record is unchanged')
      t.notOk((record.body.data.groups ?? []).includes('staff'))
      t.equal(await put({ name: 'Ivy' }), 200, 'a name is still fine')
      t.equal(
        (await call(app, 'PUT', `/groups/${ivy.id}`, adminHeaders, { group: 'staff' })).status,
        200,
        'an admin with a password still changes groups'
      )
    })

    // Found by an outside review: docs said a link changes nothing of a user record but its name,
    // yet an admin's link could delete, permanently delete and restore user records.
    t.test("an admin's login link cannot delete, permanently delete, restore or give away users", async t => {
      const jwt = await linkFor('admin@example.com')
      const kim = await createUser('kim@example.com', 'kim-password')
      for (const flags of ['', '&_permaDelete=1', '&_cascade=1']) {
        const res = await call(app, 'DELETE', `/api/user/${kim.id}?jwt=${jwt}${flags}`)
        t.equal(res.status, 403, `DELETE${flags || ' (soft)'}`)
        t.equal(res.body.code, 'FORBIDDEN')
      }
      t.equal(
        (await call(app, 'PUT', `/api/user/${kim.id}?jwt=${jwt}`, {}, { _owner_id: kim.id })).status,
        403,
        'nor change its owner'
      )
      t.equal((await call(app, 'GET', `/api/user/${kim.id}`, adminHeaders)).status, 200, 'kim is still there')
      t.equal(
        (await call(app, 'DELETE', `/api/user/${kim.id}`, adminHeaders)).status,
        200,
        'an admin with a password deletes'
      )
      t.equal(
        (await call(app, 'PUT', `/api/user/${kim.id}?jwt=${jwt}`, {}, { _deleted: false })).status,
        403,
        'the link cannot restore'
      )
      t.equal((await call(app, 'GET', `/api/user/${kim.id}`, adminHeaders)).status, 404, 'kim stays deleted')
    })

    t.test('a recovery link only resets the password, once', async t => {
      const ida = await createUser('ida@example.com', 'ida-password')
      t.equal((await call(app, 'POST', '/login/recover', {}, { email: 'ida@example.com' })).status, 200)
      const jwt = lastRecoveryJwt(smtp.mails)
      const asCredential = await call(app, 'GET', `/api/user/${ida.id}?jwt=${jwt}`)
      t.equal(asCredential.status, 401, 'it does not log in as ?jwt=')
      t.equal(asCredential.body.err, 'This link only resets a password (POST /login/reset)')
      t.equal((await call(app, 'GET', `/login/jwt?jwt=${jwt}`)).status, 401, 'nor at GET /login/jwt')
      t.equal((await call(app, 'POST', '/login/reset', {}, { jwt, password: 'ida-password-2' })).status, 200)
      t.equal(
        (await call(app, 'POST', '/login/reset', {}, { jwt, password: 'ida-password-3' })).status,
        401,
        'it dies when used'
      )
      t.equal((await login(app, 'ida@example.com', 'ida-password-2')).user_id, ida.id)
    })
  })
}
