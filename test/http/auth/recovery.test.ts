// Password recovery end to end: POST /setup creates the first admin, POST
// /login/recover emails a link (to an SMTP server the test runs, with a
// template file), POST /login/reset sets the new password with the link's JWT,
// the link then dies; without SMTP recovery is off (503 RECOVERY_DISABLED, no link logged).
import t from 'tap'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { ENGINES, basicAuth } from '../../helpers/test-app.ts'
import { bearer, createLoggedApp, json, login, startSmtp, decodeMail } from '../../helpers/auth-helpers.ts'

async function setUp(app: FastifyInstance): Promise<{ admin: string; aliceId: string }> {
  const setup = await app.inject({
    method: 'POST',
    url: '/setup',
    payload: { email: 'Root@Example.com', password: 'root-password' }
  })
  if (setup.statusCode !== 200) throw new Error(setup.body)
  const admin = basicAuth('root@example.com', 'root-password')
  const created = await app.inject({
    method: 'POST',
    url: '/api/user',
    headers: { authorization: admin },
    payload: { email: 'alice@example.com', password: 'old-password' }
  })
  return { admin, aliceId: json(created).data._id }
}

for (const engine of ENGINES) {
  t.test(engine, async t => {
    t.test('POST /setup creates the first admin once', async t => {
      const { app } = await createLoggedApp(t, engine)
      const res = await app.inject({
        method: 'POST',
        url: '/setup',
        payload: { email: 'Root@Example.com', password: 'root-password' }
      })
      t.equal(res.statusCode, 200)
      const body = json(res)
      t.equal(body.status, 'ok')
      t.match(body.data, { email: 'root@example.com', admin: true })
      t.notOk('password' in body.data)
      const again = await app.inject({
        method: 'POST',
        url: '/setup',
        payload: { email: 'other@example.com', password: 'x' }
      })
      t.equal(again.statusCode, 409)
      t.equal(json(again).code, 'CONFLICT')
      t.equal((await login(app, 'root@example.com', 'root-password')).user_id, body.data._id)
      const bad = await app.inject({ method: 'POST', url: '/setup', payload: { email: 'x' } })
      t.equal(bad.statusCode, 400)
    })

    t.test('recovery email delivered by SMTP, reset with its link', async t => {
      const smtp = await startSmtp(t)
      const dir = mkdtempSync(join(tmpdir(), 'quire-mail-'))
      const template = join(dir, 'recovery.txt')
      writeFileSync(
        template,
        'Subject: Your Quire password\n\nHello {email},\nreset it here within {minutes} minutes: {link}\n'
      )
      const { app, logs } = await createLoggedApp(t, engine, {
        smtpUrl: `smtp://127.0.0.1:${smtp.port}`,
        mailFrom: 'quire@example.com',
        passwordRecoveryUrl: 'https://app.example.com/reset?token={jwt}',
        recoveryEmailTemplate: template
      })
      const { aliceId } = await setUp(app)
      const before = await login(app, 'alice@example.com', 'old-password')

      const unknown = await app.inject({
        method: 'POST',
        url: '/login/recover',
        payload: { email: 'nobody@example.com' }
      })
      t.equal(unknown.statusCode, 403)
      t.same(json(unknown), { status: 'fail', code: 'FORBIDDEN', message: 'Unauthorized', err: 'Could not find email' })
      t.equal(smtp.mails.length, 0)

      const res = await app.inject({ method: 'POST', url: '/login/recover', payload: { email: 'Alice@Example.com' } })
      t.equal(res.statusCode, 200)
      t.same(json(res), { status: 'ok', message: 'Sent recovery email' })
      t.equal(smtp.mails.length, 1)
      t.same(smtp.mails[0].to, ['alice@example.com'])
      const text = decodeMail(smtp.mails[0].data)
      t.match(text, /Subject: Your Quire password/)
      t.match(text, /From: quire@example\.com/)
      t.match(text, /Hello alice@example\.com,/)
      t.match(text, /within 60 minutes/)
      const link = /https:\/\/app\.example\.com\/reset\?token=(\S+)/.exec(text)
      t.ok(link, 'the mail holds the link')
      const jwt = decodeURIComponent(link![1])
      t.notOk(
        logs.some(line => line.includes(jwt)),
        'with SMTP the link is not logged'
      )

      const reset = await app.inject({
        method: 'POST',
        url: '/login/reset',
        payload: { jwt, password: 'new-password' }
      })
      t.equal(reset.statusCode, 200)
      t.same(json(reset), { status: 'ok', message: 'Password changed' })
      t.equal((await login(app, 'alice@example.com', 'new-password')).user_id, aliceId)
      const old = await app.inject({
        method: 'POST',
        url: '/login',
        payload: { email: 'alice@example.com', password: 'old-password' }
      })
      t.equal(old.statusCode, 401)
      const oldBasic = await app.inject({
        method: 'GET',
        url: `/api/user/${aliceId}`,
        headers: { authorization: basicAuth('alice@example.com', 'old-password') }
      })
      t.equal(oldBasic.statusCode, 401, 'the old password stops working for Basic at once')
      const oldRefresh = await app.inject({ method: 'POST', url: '/refresh', headers: bearer(before.refresh_token) })
      t.equal(oldRefresh.statusCode, 401, 'sessions from before the reset are ended')

      const reused = await app.inject({
        method: 'POST',
        url: '/login/reset',
        payload: { jwt, password: 'third-password' }
      })
      t.equal(reused.statusCode, 401)
      t.equal(json(reused).err, 'JWT no longer valid: the password has changed')
      const asLogin = await app.inject({ method: 'GET', url: `/login/jwt?jwt=${jwt}` })
      t.equal(asLogin.statusCode, 401, 'a used link no longer logs in')
      const garbage = await app.inject({
        method: 'POST',
        url: '/login/reset',
        payload: { jwt: 'x.y.z', password: 'p' }
      })
      t.equal(json(garbage).err, 'Invalid JWT')
    })

    t.test('without SMTP recovery is off: no link is made, none reaches the log', async t => {
      const { app, logs } = await createLoggedApp(t, engine, {
        smtpUrl: undefined,
        passwordRecoveryUrl: 'https://app.example.com/reset'
      })
      await setUp(app)
      for (const email of ['alice@example.com', 'nobody@example.com']) {
        const res = await app.inject({ method: 'POST', url: '/login/recover', payload: { email } })
        t.equal(res.statusCode, 503, `${email}: ${res.body}`)
        t.equal(json(res).code, 'RECOVERY_DISABLED', 'the same answer for a known and an unknown account')
      }
      t.notOk(
        logs.some(l => l.includes('app.example.com/reset') || /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\./.test(l)),
        'no link and no JWT in the log'
      )
      t.ok(
        logs.some(l => l.includes('SMTP_URL is not set')),
        'a warning at start says recovery is off'
      )
    })

    t.test('an SMTP failure is a 503, the link not logged', async t => {
      const { app, logs } = await createLoggedApp(t, engine, { smtpUrl: 'smtp://127.0.0.1:1' })
      await setUp(app)
      const res = await app.inject({ method: 'POST', url: '/login/recover', payload: { email: 'alice@example.com' } })
      t.equal(res.statusCode, 503)
      t.equal(json(res).code, 'UNAVAILABLE')
      t.notOk(
        logs.some(l => /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\./.test(l)),
        'no JWT in the log'
      )
    })
  })
}
