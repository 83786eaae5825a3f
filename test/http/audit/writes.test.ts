// Regression tests of the outside audit (issue 9), write and read-path class, on both
// engines: a PUT cannot delete past an owner-only d right; a readable but unwritable
// document answers 403; a form restores; showDeleted works alone; list counts agree
// with their data after an empty search; bulk writes check every operation before
// hashing any password, and hash a bounded number of them. Second audit: only an admin or the
// owner restores a deleted document, and a deleted document others cannot see answers 404, not
// 403; a bulk filter on fields selects only among documents the caller may read.
import t from 'tap'
import { mkdtempSync, writeFileSync, cpSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ENGINES, createTestApp } from '../../helpers/test-app.ts'
import { json } from '../../helpers/auth-helpers.ts'

/**
 * The sample models plus `memo`, whose editors may create, read and update any memo but delete
 * only their own, and `ballot`, which users may create and update but not read.
 */
function modelsWithMemo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'quire-audit-'))
  cpSync(new URL('../../../models', import.meta.url).pathname, dir, { recursive: true })
  writeFileSync(
    join(dir, 'memo.json'),
    JSON.stringify({
      name: 'memo',
      fields: { text: { type: 'string' }, pin: { type: 'password' } },
      perms: { editors: 'cru', owner: 'rud' }
    })
  )
  writeFileSync(
    join(dir, 'ballot.json'),
    JSON.stringify({ name: 'ballot', fields: { choice: { type: 'string' } }, perms: { admin: 'crud', user: 'cu' } })
  )
  return dir
}

for (const engine of ENGINES) {
  t.test(`writes keep every letter's scope on ${engine}`, async t => {
    const { app, admin, createUser } = await createTestApp(t, engine, { modelsDir: modelsWithMemo() })
    const anna = await createUser('anna@example.com', 'anna-password', { groups: ['editors'] })
    const ben = await createUser('ben@example.com', 'ben-password', { groups: ['editors'] })
    const send = (method: 'GET' | 'PUT' | 'DELETE', url: string, authorization: string, payload?: object) =>
      app.inject({ method, url, headers: { authorization }, ...(payload && { payload }) })

    const created = await app.inject({
      method: 'POST',
      url: '/api/memo',
      headers: { authorization: anna.auth },
      payload: { text: "anna's" }
    })
    const id = json(created).data._id as string

    const del = await send('DELETE', `/api/memo/${id}`, ben.auth)
    t.equal(
      del.statusCode,
      403,
      "another editor cannot DELETE anna's memo (d is owner-only), and learns it exists: 403"
    )
    const put = await send('PUT', `/api/memo/${id}`, ben.auth, { _deleted: true })
    t.equal(put.statusCode, 403, "nor PUT {_deleted: true} on it: the PUT needs u and d, with d's owner-only scope")
    t.equal(json(await send('GET', `/api/memo/${id}`, ben.auth)).data.text, "anna's", 'the memo is still there')
    t.equal(
      (await send('PUT', `/api/memo/${id}`, ben.auth, { text: 'edited by ben' })).statusCode,
      200,
      'an editor may still update it'
    )
    t.equal(
      (await send('PUT', `/api/memo/${id}`, anna.auth, { _deleted: true })).statusCode,
      200,
      'its owner may delete it through PUT'
    )

    const testDoc = json(
      await app.inject({
        method: 'POST',
        url: '/api/test',
        headers: { authorization: admin },
        payload: { foo: 'admins' }
      })
    ).data._id as string
    const readOnly = await send('PUT', `/api/test/${testDoc}`, anna.auth, { foo: 'mine' })
    t.equal(readOnly.statusCode, 403, 'a document the caller can read but not change: 403 on PUT')
    t.equal((await send('DELETE', `/api/test/${testDoc}`, anna.auth)).statusCode, 403, 'and on DELETE')
    t.equal(
      (await send('PUT', `/api/test/${'0'.repeat(24)}`, anna.auth, { foo: 'x' })).statusCode,
      404,
      'a document that does not exist: 404'
    )
  })

  t.test(`deleted documents and bulk filters keep the read scope on ${engine}`, async t => {
    const { app, admin, createUser } = await createTestApp(t, engine, { modelsDir: modelsWithMemo() })
    const anna = await createUser('anna@example.com', 'anna-password', { groups: ['editors'] })
    const ben = await createUser('ben@example.com', 'ben-password', { groups: ['editors'] })
    const send = (method: 'POST' | 'PUT' | 'DELETE', url: string, authorization: string, payload?: unknown) =>
      app.inject({
        method,
        url,
        headers: { authorization },
        ...(payload !== undefined && { payload: payload as object })
      })

    const memo = json(await send('POST', '/api/memo', anna.auth, { text: "anna's" })).data._id as string
    t.equal(
      (await send('PUT', `/api/memo/${memo}`, ben.auth, { text: 'read, edited, written back', _deleted: false }))
        .statusCode,
      200,
      "a live memo sent back with _deleted: false (a front end's read-edit-write) is still an update for any editor"
    )
    t.equal((await send('DELETE', `/api/memo/${memo}`, anna.auth)).statusCode, 200, 'its owner deletes it')
    const restore = await send('PUT', `/api/memo/${memo}`, ben.auth, { _deleted: false })
    t.equal(restore.statusCode, 404, 'another editor cannot restore it, and learns nothing of it: 404')
    t.equal(
      (await send('DELETE', `/api/memo/${memo}?_permaDelete=1`, ben.auth)).statusCode,
      404,
      'nor delete it for good: 404'
    )
    t.equal(
      (await send('PUT', `/api/memo/${memo}`, anna.auth, { _deleted: false })).statusCode,
      200,
      'its owner restores it'
    )
    await send('DELETE', `/api/memo/${memo}`, anna.auth)
    t.equal(
      (await send('PUT', `/api/memo/${memo}`, admin, { _deleted: false })).statusCode,
      200,
      'and so does an admin'
    )

    const ballot = json(await send('POST', '/api/ballot', anna.auth, { choice: 'anna secret choice' })).data
      ._id as string
    const probe = (filter: object) =>
      send('POST', '/bulkwrite/ballot', ben.auth, [{ updateOne: { filter, update: { $set: { choice: 'x' } } } }])
    const byContent = await probe({ choice: { $regex: '^anna' } })
    t.equal(
      byContent.statusCode,
      403,
      'a user who may not read ballots cannot select them by their fields (nMatched would tell what they hold)'
    )
    t.equal(json(await probe({ _id: ballot })).nMatched, 1, 'by _id they may still update one')
    const stored = json(
      await app.inject({ method: 'GET', url: `/api/ballot/${ballot}`, headers: { authorization: admin } })
    ).data
    t.equal(stored.choice, 'x', 'and only that update was written')
  })

  t.test(`forms, showDeleted and counts on ${engine}`, async t => {
    const { app, admin } = await createTestApp(t, engine)
    const headers = { authorization: admin }
    const id = json(
      await app.inject({ method: 'POST', url: '/api/test', headers, payload: { foo: 'gone', fulltext: 'some words' } })
    ).data._id as string
    await app.inject({ method: 'DELETE', url: `/api/test/${id}`, headers })

    for (const url of ['/api/test?showDeleted=true', '/count/test?showDeleted=true']) {
      const res = await app.inject({ method: 'GET', url, headers })
      t.equal(res.statusCode, 200, `${url}: showDeleted alone compiles`)
      t.equal(json(res).count, 1, 'and sees the deleted document')
    }
    const query = await app.inject({
      method: 'POST',
      url: '/query/test?showDeleted=true',
      headers,
      payload: { query: {} }
    })
    t.equal(json(query).count, 1, '/query with showDeleted alone too')

    const form = await app.inject({
      method: 'PUT',
      url: `/api/test/${id}`,
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      payload: '_deleted=false'
    })
    t.equal(form.statusCode, 200, 'a form _deleted=false is a boolean')
    t.equal(json(form).data._deleted, false, 'and restores the document')

    await app.inject({ method: 'POST', url: '/api/test', headers, payload: { foo: 'other' } })
    const searched = json(await app.inject({ method: 'GET', url: '/api/test?search=', headers }))
    const plain = json(await app.inject({ method: 'GET', url: '/api/test', headers }))
    t.equal(searched.count, 2, 'an empty search= is no search')
    t.equal(plain.count, plain.data.length, "a plain list's count agrees with its data right after")
  })

  t.test(`bulk writes check everything before hashing on ${engine}`, async t => {
    const { app, admin } = await createTestApp(t, engine)
    const bulk = (operations: unknown[]) =>
      app.inject({ method: 'POST', url: '/bulkwrite/test', headers: { authorization: admin }, payload: operations })
    const insert = (i: number) => ({ insertOne: { document: { foo: `p${i}`, password: `password-${i}` } } })

    const tooMany = await bulk(Array.from({ length: 11 }, (_, i) => insert(i)))
    t.equal(tooMany.statusCode, 400, 'more than 10 passwords in one request: 400')
    t.match(json(tooMany).message, /At most 10 passwords/)
    const failsLast = await bulk([
      ...Array.from({ length: 5 }, (_, i) => insert(i)),
      { insertOne: { document: { foo: 7 } } }
    ])
    t.equal(failsLast.statusCode, 400, 'an invalid last operation fails the request')
    t.match(json(failsLast).message, /^Operation 5:/, 'naming it')
    t.equal(
      json(await app.inject({ method: 'GET', url: '/count/test', headers: { authorization: admin } })).count,
      0,
      'nothing written'
    )
    const ten = await bulk(Array.from({ length: 10 }, (_, i) => insert(i)))
    t.equal(json(ten).nInserted, 10, 'ten passwords are fine')
  })
}
