// bcrypt reads only 72 bytes of a password: longer ones are refused (400
// VALIDATION_FAILED, nothing changed) on every path that sets one (POST and PUT
// /api/user, /setup, /login/reset, `quire admin create`, other models' password
// fields), counted in UTF-8 bytes, not characters. On every engine.
import t, { type Test } from 'tap'
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { FastifyInstance } from 'fastify'
import { ENGINES, basicAuth, createTestApp, databaseUrl } from '../../helpers/test-app.ts'
import { TEST_SETTINGS, createLoggedApp, json, lastRecoveryJwt, startSmtp } from '../../helpers/auth-helpers.ts'
import { QUIRE_CLI_ARGS } from '../../helpers/run-cli.ts'

const run = promisify(execFile)
const root = new URL('../../..', import.meta.url).pathname

/** 72 bytes: 36 two-byte characters, 18 four-byte ones, 72 ASCII ones. */
const FITS = ['é'.repeat(36), '😀'.repeat(18), 'a'.repeat(72)]
/**
 * One character more: 74, 76 and 73 bytes. Before the limit, bcrypt cut the first two to the
 * passwords in FITS; the model schema's 72-character cap already refused the ASCII one.
 */
const TOO_LONG = ['é'.repeat(37), '😀'.repeat(19), 'a'.repeat(73)]

async function send(
  app: FastifyInstance,
  method: 'POST' | 'PUT',
  url: string,
  payload: object,
  authorization?: string
): Promise<{ status: number; body: Record<string, any> }> {
  const res = await app.inject({ method, url, payload, ...(authorization && { headers: { authorization } }) })
  return { status: res.statusCode, body: json(res) }
}

/** A 400 naming the password field; past the schema's 72-character cap, the byte limit's own message. */
function refused(t: Test, res: { status: number; body: Record<string, any> }, name: string): void {
  t.equal(res.status, 400, name)
  t.equal(res.body.code, 'VALIDATION_FAILED', name)
  t.equal(res.body.details?.[0]?.field, 'password', name)
  if (!/^a+$/.test(name)) t.match(res.body.message, /at most 72 bytes/, name)
}

for (const engine of ENGINES) {
  t.test(engine, async t => {
    const { app, admin, createUser } = await createTestApp(t, engine, TEST_SETTINGS)
    const loginStatus = async (email: string, password: string): Promise<number> =>
      (await app.inject({ method: 'POST', url: '/login', payload: { email, password } })).statusCode

    t.test('POST /api/user counts bytes, not characters', async t => {
      for (const [i, password] of TOO_LONG.entries()) {
        const res = await send(app, 'POST', '/api/user', { email: `long${i}@example.com`, password }, admin)
        refused(t, res, password)
        if (i < 2) t.same(res.body.details, [{ field: 'password', message: 'must be at most 72 bytes (UTF-8)' }])
        t.equal(await loginStatus(`long${i}@example.com`, password), 401, 'no user was created')
      }
      for (const [i, password] of FITS.entries()) {
        const characters = [...password]
        t.equal(
          (await send(app, 'POST', '/api/user', { email: `fits${i}@example.com`, password }, admin)).status,
          200,
          `${characters.length} characters, 72 bytes`
        )
        t.equal(await loginStatus(`fits${i}@example.com`, password), 200)
        t.equal(
          await loginStatus(`fits${i}@example.com`, characters.slice(0, -1).join('')),
          401,
          'every character counts'
        )
      }
    })

    t.test("PUT /api/user (own and admin) and other models' password fields", async t => {
      const ann = await createUser('ann@example.com', 'ann-password')
      refused(t, await send(app, 'PUT', `/api/user/${ann.id}`, { password: TOO_LONG[0] }, ann.auth), 'own change')
      refused(t, await send(app, 'PUT', `/api/user/${ann.id}`, { password: TOO_LONG[1] }, admin), 'admin reset')
      t.equal(await loginStatus('ann@example.com', 'ann-password'), 200, 'the password is unchanged')
      refused(
        t,
        await send(app, 'POST', '/api/test', { foo: 'x', password: TOO_LONG[1] }, admin),
        "the test model's password field"
      )
      refused(t, await send(app, 'POST', '/api/test', { foo: 'x', password: TOO_LONG[2] }, admin), TOO_LONG[2])
    })

    t.test('/setup and /login/reset', async t => {
      const smtp = await startSmtp(t)
      const { app: fresh } = await createLoggedApp(t, engine, {
        ...TEST_SETTINGS,
        smtpUrl: `smtp://127.0.0.1:${smtp.port}`
      })
      refused(t, await send(fresh, 'POST', '/setup', { email: 'root@example.com', password: TOO_LONG[0] }), '/setup')
      t.equal(
        (await send(fresh, 'POST', '/setup', { email: 'root@example.com', password: FITS[0] })).status,
        200,
        'setup was still open'
      )
      t.equal((await send(fresh, 'POST', '/login/recover', { email: 'root@example.com' })).status, 200)
      const jwt = lastRecoveryJwt(smtp.mails)
      refused(t, await send(fresh, 'POST', '/login/reset', { jwt, password: TOO_LONG[1] }), '/login/reset')
      t.equal(
        (await send(fresh, 'POST', '/login/reset', { jwt, password: FITS[1] })).status,
        200,
        'the link still works'
      )
      t.equal(
        (
          await fresh.inject({
            method: 'GET',
            url: '/api/user',
            headers: { authorization: basicAuth('root@example.com', FITS[1]) }
          })
        ).statusCode,
        200
      )
    })

    t.test('quire admin create', async t => {
      const env = {
        ...process.env,
        DATABASE_URL: await databaseUrl(engine),
        MODELS_DIR: join(root, 'models'),
        BCRYPT_ROUNDS: '4'
      }
      const cli = run(
        process.execPath,
        [...QUIRE_CLI_ARGS, 'admin', 'create', '--email', 'ops@example.com', '--password', TOO_LONG[0]],
        { env, cwd: root }
      )
      const err = await cli.then(
        () => undefined,
        (e: { code: number; stderr: string }) => e
      )
      t.equal(err?.code, 1)
      t.match(err?.stderr, /password is 74 bytes long in UTF-8: a password is at most 72 bytes/)
    })
  })
}
