// The first admin without an open /setup: QUIRE_ADMIN_EMAIL and QUIRE_ADMIN_PASSWORD create it at
// start (once: a restart, or a second process, finds it there), and a start that leaves /setup
// open warns about it.
import t from 'tap'
import { Writable } from 'node:stream'
import { ENGINES } from '../../helpers/test-app.ts'
import { createLoggedApp, json, login } from '../../helpers/auth-helpers.ts'
import { buildApp } from '../../../app.ts'
import { loadConfig } from '../../../src/config.ts'
import { SETUP_OPEN_WARNING } from '../../../plugins/first-admin.ts'
import { StartupError } from '../../../src/startup-error.ts'

const warned = (logs: string[]): boolean =>
  logs.some(l => {
    const line = JSON.parse(l) as { level: number; msg: string }
    return line.level === 40 && line.msg === SETUP_OPEN_WARNING
  })

for (const engine of ENGINES) {
  t.test(engine, async t => {
    t.test('a start with no user says loudly that /setup is open, until it is used', async t => {
      const { app, logs } = await createLoggedApp(t, engine)
      t.ok(warned(logs), 'warned at start')
      t.equal(
        (
          await app.inject({
            method: 'POST',
            url: '/setup',
            payload: { email: 'root@example.com', password: 'root-password' }
          })
        ).statusCode,
        200
      )
      const later: string[] = []
      const again = await buildApp({
        config: app.config,
        logger: {
          level: 'warn',
          stream: new Writable({
            write(chunk, _enc, done) {
              later.push(String(chunk))
              done()
            }
          })
        }
      })
      t.teardown(() => again.close())
      t.notOk(warned(later), 'a start after setup does not warn')
    })

    t.test(
      'QUIRE_ADMIN_EMAIL and QUIRE_ADMIN_PASSWORD create the first admin at start; /setup is never open',
      async t => {
        const { app, logs } = await createLoggedApp(t, engine, {
          firstAdmin: { email: 'Ops@Example.com', password: 'ops-long-password' }
        })
        t.notOk(warned(logs), 'no warning')
        t.ok(
          logs.some(l => l.includes('created the first admin, ops@example.com')),
          'the start says so'
        )
        t.notOk(
          logs.some(l => l.includes('ops-long-password')),
          'the password is not logged'
        )
        const setup = await app.inject({
          method: 'POST',
          url: '/setup',
          payload: { email: 'mallory@example.com', password: 'mallory-password' }
        })
        t.equal(setup.statusCode, 409, 'POST /setup is closed')
        t.equal(json(setup).code, 'CONFLICT')
        const session = await login(app, 'ops@example.com', 'ops-long-password')
        const me = await app.inject({
          url: `/api/user/${session.user_id}`,
          headers: { authorization: `Bearer ${session.token}` }
        })
        t.equal(json(me).data.admin, true, 'an admin')

        const restarted = await buildApp({
          config: { ...app.config, firstAdmin: { email: 'other@example.com', password: 'other-password' } },
          logger: { level: 'silent' }
        })
        t.teardown(() => restarted.close())
        t.equal(
          (
            await restarted.inject({
              method: 'POST',
              url: '/login',
              payload: { email: 'other@example.com', password: 'other-password' }
            })
          ).statusCode,
          401,
          'a later start with other values creates no second admin'
        )
      }
    )

    t.test('a first admin the user rules refuse stops the start with one line', async t => {
      const { app: base } = await createLoggedApp(t, engine)
      const failure = await buildApp({
        config: { ...base.config, firstAdmin: { email: 'not-an-email', password: 'ops-long-password' } },
        logger: { level: 'silent' }
      }).then(
        async app => {
          await app.close()
        },
        (err: Error) => err
      )
      t.match(failure, { message: /^QUIRE_ADMIN_EMAIL, QUIRE_ADMIN_PASSWORD: .*email must match/ })
      t.type(failure, StartupError, "an operator's mistake: one line, no stack")
    })
  })
}

t.test('QUIRE_ADMIN_EMAIL needs QUIRE_ADMIN_PASSWORD', async t => {
  t.throws(() => loadConfig({ QUIRE_ADMIN_EMAIL: 'ops@example.com' }), {
    message: /QUIRE_ADMIN_EMAIL needs QUIRE_ADMIN_PASSWORD/
  })
  t.same(loadConfig({ QUIRE_ADMIN_EMAIL: 'ops@example.com', QUIRE_ADMIN_PASSWORD: 'pw' }).firstAdmin, {
    email: 'ops@example.com',
    password: 'pw'
  })
})
