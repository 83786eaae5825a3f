// Permissions of GET /changes on PostgreSQL, decided per event with each
// subscriber's current credential: owner-only readers get their own documents' events,
// group readers while they are in the group, anonymous readers where `all` may read;
// a logged-out token, a deleted user or a changed password ends the stream; filters are
// the list's (checked the same way); refusals come before the stream, as JSON errors.
import t from 'tap'
import { mkdtempSync, writeFileSync, copyFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ENGINES, basicAuth, createTestApp } from '../helpers/test-app.ts'
import { openSse, type SseStream } from '../helpers/sse-client.ts'
import { FEED_SETTINGS, listen, send } from '../helpers/feed-app.ts'
import { bearer, login } from '../helpers/auth-helpers.ts'

const models = mkdtempSync(join(tmpdir(), 'quire-feed-models-'))
for (const name of ['test', 'link'])
  copyFileSync(new URL(`../../models/${name}.json`, import.meta.url), join(models, `${name}.json`))
const model = (name: string, perms: object): void =>
  writeFileSync(join(models, `${name}.json`), JSON.stringify({ name, fields: { text: { type: 'string' } }, perms }))
model('note', { admin: 'crud', owner: 'crud', user: 'c' })
model('memo', { admin: 'crud', readers: 'r', user: 'c' })
model('vault', { admin: 'crud' })

/** The events after `ready`, once `count` arrived, as [op, text]. */
async function changes(stream: SseStream, count: number): Promise<Array<[string, string]>> {
  return (await stream.waitFor(count + 1)).slice(1).map(e => [e.json.op, e.json.data.text])
}

for (const engine of ENGINES) {
  t.test(`change feed permissions on ${engine}`, async t => {
    const { app, admin, createUser } = await createTestApp(t, engine, { ...FEED_SETTINGS, modelsDir: models })
    const base = await listen(app)
    const alice = await createUser('alice@example.com', 'alice-password')
    const bob = await createUser('bob@example.com', 'bob-password', { groups: ['readers'] })
    const carol = await createUser('carol@example.com', 'carol-password')
    const open = async (path: string, headers: Record<string, string> = {}): Promise<SseStream> => {
      const stream = await openSse(`${base}${path}`, headers)
      t.teardown(() => stream.close())
      return stream
    }

    t.test('refusals are JSON errors before any stream', async t => {
      const cases: Array<[string, Record<string, string>, number, string]> = [
        ['/changes/vault', {}, 401, 'AUTH_REQUIRED'],
        ['/changes/vault', { authorization: carol.auth }, 403, 'FORBIDDEN'],
        ['/changes/memo', { authorization: carol.auth }, 403, 'FORBIDDEN'],
        ['/changes/nope', {}, 404, 'MODEL_NOT_FOUND'],
        ['/changes/test?filter[password]=x', {}, 400, 'INVALID_FIELD'],
        ['/changes/test?sort=foo', {}, 400, 'BAD_REQUEST'],
        ['/changes/test?filter[yack.n]=$gt:abc', {}, 400, 'INVALID_QUERY'],
        ['/changes/test?filter[foo]=$regex:/(/', {}, 400, 'INVALID_REGEX'],
        ['/changes/test?filter[__proto__]=x', {}, 400, 'INVALID_FIELD'],
        ['/changes/test/not-an-id', {}, 400, 'INVALID_ID'],
        ['/changes/note?showDeleted=true', { authorization: alice.auth }, 403, 'FORBIDDEN'],
        ['/changes/test', { authorization: basicAuth('alice@example.com', 'wrong') }, 401, 'AUTH_FAILED']
      ]
      for (const [path, headers, status, code] of cases) {
        const stream = await open(path, headers)
        if (stream.status === 200) stream.close()
        t.strictSame(
          [stream.status, JSON.parse((await stream.body()) || '{}').code],
          [status, code],
          `${path}: ${status} ${code}`
        )
      }
    })

    t.test('owner-only readers get their own documents; filters and ids narrow', async t => {
      const aliceNotes = await open('/changes/note', { authorization: alice.auth })
      const carolNotes = await open('/changes/note', { authorization: carol.auth })
      const adminNotes = await open('/changes/note?filter[text]=$regex:/^c/', { authorization: admin })
      await Promise.all([aliceNotes, carolNotes, adminNotes].map(s => s.waitFor(1)))
      const a1 = (await send(app, alice.auth, 'POST', '/api/note', { text: 'a1' })).data._id
      const byId = await open(`/changes/note/${a1}`, { authorization: alice.auth })
      await byId.waitFor(1)
      await send(app, carol.auth, 'POST', '/api/note', { text: 'c1' })
      await send(app, alice.auth, 'PUT', `/api/note/${a1}`, { text: 'a2' })
      await send(app, alice.auth, 'POST', '/api/note', { text: 'a3' })
      await send(app, alice.auth, 'DELETE', `/api/note/${a1}`)
      t.strictSame(
        await changes(aliceNotes, 4),
        [
          ['create', 'a1'],
          ['update', 'a2'],
          ['create', 'a3'],
          ['soft_delete', 'a2']
        ],
        'alice: only hers'
      )
      t.strictSame(await changes(carolNotes, 1), [['create', 'c1']], 'carol: only hers')
      t.strictSame(await changes(adminNotes, 1), [['create', 'c1']], 'a filter in the list syntax narrows')
      t.strictSame(
        await changes(byId, 2),
        [
          ['update', 'a2'],
          ['soft_delete', 'a2']
        ],
        '/changes/{model}/{id}: that document only'
      )
      await send(app, carol.auth, 'POST', '/api/note', { text: 'c2' })
      t.strictSame((await changes(carolNotes, 2))[1], ['create', 'c2'], 'still flowing')
      t.equal(aliceNotes.events.length, 5, "and alice saw nothing of carol's")
    })

    t.test('filters on nested fields and on several fields match the whole document', async t => {
      const nested = await open('/changes/test?filter[yack.n]=$gt:5&filter[bar]=b')
      await nested.waitFor(1)
      for (const [foo, yack, bar] of [
        ['small', { n: 1 }, 'b'],
        ['other-bar', { n: 9 }, 'c'],
        ['match', { s: 's', n: 9 }, 'b']
      ] as const) {
        await send(app, carol.auth, 'POST', '/api/test', { foo, yack, bar })
      }
      const [, event] = await nested.waitFor(2)
      t.strictSame(
        [event.json.data.foo, event.json.data.yack, event.json.data.bar],
        ['match', { s: 's', n: 9 }, 'b'],
        'only the document matching both, sent whole'
      )
    })

    t.test('anonymous readers, group readers, and no password field', async t => {
      const anonymous = await open('/changes/test')
      const memos = await open('/changes/memo', { authorization: bob.auth })
      await Promise.all([anonymous.waitFor(1), memos.waitFor(1)])
      await send(app, carol.auth, 'POST', '/api/test', { foo: 'x', password: 'hunter22' })
      await send(app, carol.auth, 'POST', '/api/memo', { text: 'm1' })
      const [, created] = await anonymous.waitFor(2)
      t.strictSame(
        [created.json.op, created.json.data.foo, 'password' in created.json.data],
        ['create', 'x', false],
        'anonymous: the event, without the password field'
      )
      t.strictSame(await changes(memos, 1), [['create', 'm1']], 'a group reader')
      await send(app, admin, 'DELETE', `/users/${bob.id}/groups/readers`)
      await send(app, carol.auth, 'POST', '/api/memo', { text: 'm2' })
      await memos.ended()
      const last = memos.events[memos.events.length - 1]
      t.strictSame(
        [last.event, last.json.code],
        ['close', 'FORBIDDEN'],
        'left the group: the stream ends, with the reason'
      )
      t.notOk(
        memos.events.some(e => e.json.data?.text === 'm2'),
        'and no later event reached it'
      )
    })

    t.test('a logged-out token, a changed password or a deleted user ends the stream', async t => {
      const session = await login(app, 'carol@example.com', 'carol-password')
      const byToken = await open('/changes/test', bearer(session.token))
      const byKey = await open(`/changes/test?apikey=${session.apikey}`)
      const byPassword = await open('/changes/note', { authorization: alice.auth })
      await Promise.all([byToken, byKey, byPassword].map(s => s.waitFor(1)))
      await app.inject({ method: 'GET', url: '/login/logout', headers: bearer(session.token) })
      await send(app, admin, 'POST', '/api/test', { foo: 'after-logout' })
      await byToken.ended()
      t.strictSame(
        byToken.events.slice(1).map(e => [e.event, e.json.code]),
        [['close', 'CREDENTIALS_REVOKED']],
        'logout: closed before the next event'
      )
      t.strictSame((await byKey.waitFor(2))[1].json.data.foo, 'after-logout', 'the API key outlives the session')
      await send(app, admin, 'PUT', `/api/user/${alice.id}`, { password: 'new-alice-password' })
      await byPassword.ended()
      t.strictSame(
        byPassword.events.slice(1).map(e => e.json.code),
        ['CREDENTIALS_REVOKED'],
        'a changed password ends a Basic stream'
      )
      await send(app, admin, 'DELETE', `/api/user/${carol.id}`)
      await send(app, admin, 'POST', '/api/test', { foo: 'after-delete' })
      await byKey.ended()
      t.strictSame(
        byKey.events.slice(2).map(e => e.json.code),
        ['CREDENTIALS_REVOKED'],
        "a deleted user's API key ends its stream"
      )
    })
  })
}
