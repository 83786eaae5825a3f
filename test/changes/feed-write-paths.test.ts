// GET /changes/{model} on PostgreSQL: every write path emits (POST, PUT,
// POST /update, restore, DELETE, permanent DELETE, cascades, /bulkwrite, imports, and on
// PostgreSQL a statement from another connection), in order, with soft delete, restore and
// permanent delete told apart, the acting user's id, and the document as a reader sees it
// (no password field).
import t from 'tap'
import { writeFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { ENGINES, createTestApp } from '../helpers/test-app.ts'
import { openSse } from '../helpers/sse-client.ts'
import { FEED_SETTINGS, listen, send } from '../helpers/feed-app.ts'
import { importDocuments } from '../../src/transfer/import-documents.ts'

const dir = mkdtempSync(join(tmpdir(), 'quire-feed-'))

for (const engine of ENGINES) {
  t.test(`every write path emits on ${engine}`, async t => {
    const { app, createUser } = await createTestApp(t, engine, FEED_SETTINGS)
    const writer = await createUser('writer@example.com', 'writer-password', { admin: true })
    const base = await listen(app)
    const stream = await openSse(`${base}/changes/test`)
    t.teardown(() => stream.close())
    t.equal(stream.status, 200, 'anonymous readers of `test` may subscribe')
    const [ready] = await stream.waitFor(1)
    t.equal(ready.event, 'ready', 'the stream starts with `ready`, whose id is its position')

    const as = writer.auth
    const a = (await send(app, as, 'POST', '/api/test', { foo: 'a', password: 'secret-pass' })).data._id
    await send(app, as, 'PUT', `/api/test/${a}`, { bar: 'b' })
    await send(app, as, 'POST', `/update/test/${a}`, { bar: 'u' })
    await send(app, as, 'DELETE', `/api/test/${a}`)
    await send(app, as, 'PUT', `/api/test/${a}`, { _deleted: false })
    await send(app, as, 'POST', '/bulkwrite/test', [
      { insertOne: { document: { foo: 'c' } } },
      { updateOne: { filter: { foo: 'c' }, update: { $set: { bar: 'cc' } } } },
      { replaceOne: { filter: { foo: 'c' }, replacement: { foo: 'c2' } } },
      { deleteOne: { filter: { foo: 'c2' } } },
      { updateOne: { filter: { foo: 'd' }, update: { $set: { bar: 'dd' } }, upsert: true } }
    ])
    const link = (await send(app, as, 'POST', '/api/link', { name: 'l' })).data._id
    await send(app, as, 'POST', '/api/test', { foo: 'linked', link_id: link })
    await send(app, as, 'DELETE', `/api/link/${link}?_cascade=1`)
    await send(app, as, 'DELETE', `/api/test/${a}?_permaDelete=1`)
    const file = join(dir, `${engine}.ndjson`)
    writeFileSync(file, '{"foo":"i1"}\n{"foo":"i2","_deleted":true}\n')
    await importDocuments(app.db, app.models.get('test'), file, {
      skipInvalid: false,
      bcryptRounds: 4,
      onProgress: () => {},
      onSkip: () => {}
    })

    const events = (await stream.waitFor(15)).slice(1)
    t.strictSame(
      events.map(e => [e.event, e.json.op, e.json.data.foo]),
      [
        ['create', 'create', 'a'],
        ['update', 'update', 'a'],
        ['update', 'update', 'a'],
        ['delete', 'soft_delete', 'a'],
        ['update', 'restore', 'a'],
        ['create', 'create', 'c'],
        ['update', 'update', 'c'],
        ['update', 'update', 'c2'],
        ['delete', 'soft_delete', 'c2'],
        ['create', 'create', 'd'],
        ['create', 'create', 'linked'],
        ['delete', 'soft_delete', 'linked'],
        ['delete', 'permanent_delete', 'a'],
        ['create', 'create', 'i1']
      ],
      'each write once, in order, cascades included; an imported soft-deleted document is not shown to ' +
        'readers without showDeleted'
    )
    t.strictSame(events.map(e => e.json.data.bar ?? null).slice(1, 3), ['b', 'u'], 'PUT and POST /update')
    t.strictSame(
      events.map(e => e.json.user_id),
      [...events.slice(0, -1).map(() => writer.id), null],
      "the acting user's id (none for an import from the command line)"
    )
    t.ok(
      events.every(
        e =>
          e.json.model === 'test' &&
          e.id === e.json.id &&
          typeof e.json.at === 'string' &&
          e.json._id === e.json.data._id
      ),
      'model, position, time and id on every event'
    )
    t.ok(
      events.every(e => !('password' in e.json.data)),
      'no password field, ever'
    )
    t.ok(
      events.every((e, i) => i === 0 || BigInt(e.id!) > BigInt(events[i - 1].id!)),
      'ids increase'
    )
    const b = (await send(app, as, 'POST', '/api/test', { foo: 'b' })).data._id
    await stream.waitFor(16)

    if (engine === 'postgres') {
      const other = postgres(app.config.databaseUrl, { max: 1, onnotice: () => {} })
      t.teardown(() => other.end())
      await other.unsafe('DELETE FROM q_test WHERE _id = $1', [b])
      const [gone] = (await stream.waitFor(17)).slice(16)
      t.strictSame(
        [gone.event, gone.json.op, gone.json._id, gone.json.data.foo, gone.json.user_id],
        ['delete', 'permanent_delete', b, 'b', null],
        'a write no route made (another connection) is captured too: a permanent delete, with the document as it was'
      )
    }
  })
}
