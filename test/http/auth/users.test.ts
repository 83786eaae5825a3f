// The user model's rules through /api/user (lower-case unique emails, what a
// non-admin may change, own record only, no passwords out), the effect of
// password, admin and group changes on live credentials, the group endpoints
// and `quire admin create`, on every engine.
import t from 'tap'
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { ENGINES, basicAuth, createTestApp, databaseUrl } from '../../helpers/test-app.ts'
import { TEST_SETTINGS, bearer, json, login } from '../../helpers/auth-helpers.ts'
import { QUIRE_CLI_ARGS } from '../../helpers/run-cli.ts'

const run = promisify(execFile)
const root = new URL('../../..', import.meta.url).pathname

for (const engine of ENGINES) {
  t.test(engine, async t => {
    const { app, admin, createUser } = await createTestApp(t, engine, TEST_SETTINGS)
    const inject = async (
      method: 'GET' | 'POST' | 'PUT' | 'DELETE',
      url: string,
      authorization?: string,
      payload?: object
    ): Promise<{ status: number; body: Record<string, any> }> => {
      const res = await app.inject({
        method,
        url,
        ...(authorization && { headers: { authorization } }),
        ...(payload && { payload })
      })
      return { status: res.statusCode, body: json(res) }
    }

    t.test('emails are stored lower-case and unique', async t => {
      const created = await inject('POST', '/api/user', admin, {
        email: 'Bob@Example.COM',
        password: 'bob-password',
        name: 'Bob'
      })
      t.equal(created.status, 200)
      t.equal(created.body.data.email, 'bob@example.com')
      t.equal(created.body.data._owner_id, created.body.data._id, 'a user owns their own record')
      t.notOk('password' in created.body.data)
      const dup = await inject('POST', '/api/user', admin, { email: 'BOB@example.com', password: 'x' })
      t.equal(dup.status, 409)
      t.equal(dup.body.code, 'DUPLICATE_KEY')
      const other = await createUser('carol@example.com', 'carol-password')
      const clash = await inject('PUT', `/api/user/${other.id}`, admin, { email: 'Bob@example.com' })
      t.equal(clash.status, 409, 'an update to a taken email (any case) is a conflict')
      t.equal((await login(app, 'BOB@EXAMPLE.COM', 'bob-password')).user_id, created.body.data._id)
    })

    t.test('a non-admin sees and changes only their own name and password', async t => {
      const dave = await createUser('dave@example.com', 'dave-password', { name: 'Dave' })
      const erin = await createUser('erin@example.com', 'erin-password')
      const list = await inject('GET', '/api/user', dave.auth)
      t.equal(list.status, 200)
      t.equal(list.body.count, 1)
      t.equal(list.body.data[0].email, 'dave@example.com')
      t.notOk(JSON.stringify(list.body).includes('$2'), 'no hash in the list')
      t.equal((await inject('GET', `/api/user/${erin.id}`, dave.auth)).status, 404)
      t.equal((await inject('GET', `/count/user`, dave.auth)).body.count, 1)
      t.equal(
        (await inject('POST', '/query/user', dave.auth, { query: { email: { $regex: 'example' } } })).body.count,
        1
      )
      const renamed = await inject('PUT', `/api/user/${dave.id}`, dave.auth, { name: 'David' })
      t.equal(renamed.status, 200)
      t.equal(renamed.body.data.name, 'David')
      for (const field of [{ admin: true }, { groups: ['staff'] }, { email: 'dave2@example.com' }]) {
        const res = await inject('PUT', `/api/user/${dave.id}`, dave.auth, field)
        t.equal(res.status, 403, JSON.stringify(field))
        t.equal(res.body.code, 'FORBIDDEN')
      }
      t.equal((await inject('PUT', `/api/user/${dave.id}`, dave.auth, { _owner_id: erin.id })).status, 403)
      t.equal(
        (await inject('PUT', `/api/user/${erin.id}`, dave.auth, { name: 'x' })).status,
        404,
        "another user's record is out of reach"
      )
      t.equal((await inject('DELETE', `/api/user/${dave.id}`, dave.auth)).status, 403)
      t.equal((await inject('POST', '/api/user', dave.auth, { email: 'new@example.com', password: 'x' })).status, 403)
      t.equal((await inject('GET', '/api/user')).status, 401)
    })

    t.test('a password change ends sessions, the API key and old Basic credentials at once', async t => {
      const frank = await createUser('frank@example.com', 'frank-password')
      t.equal((await inject('GET', `/api/user/${frank.id}`, frank.auth)).status, 200, 'Basic pair cached')
      const session = await login(app, 'frank@example.com', 'frank-password')
      const changed = await inject('PUT', `/api/user/${frank.id}`, bearer(session.token).authorization, {
        password: 'frank-new',
        current_password: 'frank-password'
      })
      t.equal(changed.status, 200)
      t.notOk('password' in changed.body.data)
      t.equal((await inject('GET', `/api/user/${frank.id}`, frank.auth)).status, 401, 'old Basic pair refused')
      t.equal(
        (await inject('GET', `/api/user/${frank.id}`, bearer(session.token).authorization)).status,
        401,
        'token revoked'
      )
      const refreshed = await app.inject({ method: 'POST', url: '/refresh', headers: bearer(session.refresh_token) })
      t.equal(refreshed.statusCode, 401, 'refresh token revoked')
      t.equal(
        (await app.inject({ method: 'GET', url: `/api/user/${frank.id}?apikey=${session.apikey}` })).statusCode,
        401,
        'API key revoked'
      )
      t.equal((await inject('GET', `/api/user/${frank.id}`, basicAuth('frank@example.com', 'frank-new'))).status, 200)
    })

    t.test('admin flag, groups and deletion apply to live credentials at once', async t => {
      const gina = await createUser('gina@example.com', 'gina-password')
      const session = await login(app, 'gina@example.com', 'gina-password')
      t.equal((await inject('GET', '/api/user', gina.auth)).body.count, 1, 'Basic pair cached as a non-admin')
      t.equal((await inject('PUT', `/api/user/${gina.id}`, admin, { admin: true })).status, 200)
      t.ok((await inject('GET', '/api/user', gina.auth)).body.count > 1, 'Basic caller is an admin now')
      t.ok(
        (await inject('GET', '/api/user', bearer(session.token).authorization)).body.count > 1,
        'token caller is an admin now'
      )
      t.equal((await inject('PUT', `/api/user/${gina.id}`, admin, { admin: false })).status, 200)
      t.equal((await inject('GET', '/api/user', gina.auth)).body.count, 1)
      t.equal(
        (await inject('PUT', `/api/user/${gina.id}`, admin, { groups: ['admin'] })).status,
        400,
        'a group cannot be named like a role'
      )
      t.equal((await inject('DELETE', `/api/user/${gina.id}`, admin)).status, 200)
      t.equal((await inject('GET', '/api/link', gina.auth)).status, 401, 'a deleted user cannot log in with Basic')
      t.equal(
        (await app.inject({ method: 'GET', url: `/api/link?apikey=${session.apikey}` })).statusCode,
        401,
        'nor with the API key'
      )
      const relogin = await app.inject({
        method: 'POST',
        url: '/login',
        payload: { email: 'gina@example.com', password: 'gina-password' }
      })
      t.equal(relogin.statusCode, 401)
    })

    t.test('group endpoints (admins only)', async t => {
      const hal = await createUser('hal@example.com', 'hal-password')
      const url = `/users/${hal.id}/groups`
      t.same((await inject('GET', url, admin)).body, { status: 'ok', groups: [] })
      const added = await inject('POST', url, admin, { group: 'editors' })
      t.equal(added.status, 200)
      t.same(added.body.groups, ['editors'])
      t.same(
        (await inject('POST', url, admin, { group: 'editors' })).body.groups,
        ['editors'],
        'adding twice is a no-op'
      )
      t.same((await inject('POST', url, admin, { group: 'staff' })).body.groups, ['editors', 'staff'])
      t.same((await inject('DELETE', `${url}/editors`, admin)).body.groups, ['staff'])
      t.same((await inject('GET', url, admin)).body.groups, ['staff'])
      t.same((await inject('GET', `/api/user/${hal.id}`, admin)).body.data.groups, ['staff'])
      t.equal((await inject('POST', url, admin, { group: 'owner' })).status, 400)
      t.equal((await inject('POST', url, admin, { group: 'bad group!' })).status, 400)
      t.equal((await inject('GET', url, hal.auth)).status, 403)
      t.equal((await inject('POST', url, hal.auth, { group: 'x' })).status, 403)
      t.equal((await inject('GET', url)).status, 401)
      t.equal((await inject('GET', '/users/nope/groups', admin)).status, 400)
      t.equal((await inject('GET', '/users/0123456789abcdef01234567/groups', admin)).status, 404)
    })

    t.test('quire admin create', async t => {
      const url = await databaseUrl(engine)
      const env = { ...process.env, DATABASE_URL: url, MODELS_DIR: join(root, 'models'), BCRYPT_ROUNDS: '4' }
      const cli = async (...args: string[]): Promise<{ code: number; out: string }> => {
        try {
          const { stdout } = await run(process.execPath, [...QUIRE_CLI_ARGS, ...args], {
            env,
            cwd: root
          })
          return { code: 0, out: stdout }
        } catch (err) {
          const e = err as { code: number; stderr: string }
          return { code: e.code, out: e.stderr }
        }
      }
      const made = await cli('admin', 'create', '--email', 'Ops@Example.com', '--password', 'ops-password')
      t.equal(made.code, 0, made.out)
      t.match(made.out, /admin ops@example\.com created \(id [0-9a-f]{24}\)/)
      const again = await cli('admin', 'create', '--email', 'ops@example.com', '--password', 'x')
      t.equal(again.code, 1)
      t.match(again.out, /exists already/)
      const invalid = await cli('admin', 'create', '--email', 'not-an-email', '--password', 'x')
      t.equal(invalid.code, 1)
      t.match(invalid.out, /email/)
      const { app: served } = await createTestApp(t, engine, { ...TEST_SETTINGS, databaseUrl: url })
      const session = await login(served, 'ops@example.com', 'ops-password')
      const list = await served.inject({ method: 'GET', url: '/api/user', headers: bearer(session.token) })
      t.equal(json(list).count, 2, 'the CLI admin sees every user (and the test admin)')
    })
  })
}
