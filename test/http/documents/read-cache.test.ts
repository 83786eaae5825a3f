// The response cache (CACHE_ENABLED, issue 35): no caller is ever served a document they may not
// read (entries are keyed by the caller's view), no stale hit follows a write, in this app or in
// another one on the same database (another process: it hears of writes only through the change
// log, also when the listening connections are cut), it is bounded, and its administration is
// admins' only. Failed before: no cache at all.
import t from 'tap'
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { ENGINES, createTestApp, secondApp } from '../../helpers/test-app.ts'
import { TEST_SETTINGS, json } from '../../helpers/auth-helpers.ts'
import type { Config } from '../../../src/config.ts'
import { openPostgres } from '../../../src/storage/postgres/postgres-client.ts'

const CACHE: Partial<Config> = { ...TEST_SETTINGS, cacheEnabled: true, cacheTtlSeconds: 600 }

/** The sample models and `note`, whose documents only their owners (and admins) may read. */
function modelsWithNotes(): string {
  const dir = mkdtempSync(join(tmpdir(), 'quire-cache-'))
  cpSync(new URL('../../../models', import.meta.url).pathname, dir, { recursive: true })
  writeFileSync(
    join(dir, 'note.json'),
    JSON.stringify({
      name: 'note',
      fields: { text: { type: 'string' } },
      perms: { admin: 'crud', owner: 'crud', user: 'c' }
    })
  )
  return dir
}

for (const engine of ENGINES) {
  t.test(`response cache on ${engine}`, async t => {
    const { app, admin, createUser } = await createTestApp(t, engine, {
      ...CACHE,
      modelsDir: modelsWithNotes(),
      cacheMaxEntries: 50
    })
    const alice = await createUser('alice@example.com', 'alice-password')
    const bob = await createUser('bob@example.com', 'bob-password')
    const get = (a: FastifyInstance, url: string, authorization?: string) =>
      a.inject({ method: 'GET', url, headers: authorization === undefined ? {} : { authorization } })
    /** Reads until a hit: right after a write, reads miss until the change log has delivered it. */
    const hitOf = async (url: string, authorization: string) => {
      for (let i = 0; i < 100; i++) {
        const res = await get(app, url, authorization)
        if (res.headers['jxp-cache'] === 'hit') return res
        await new Promise(resolve => setTimeout(resolve, 50))
      }
      throw new Error(`no hit for ${url}`)
    }

    await t.test('no caller is served what they may not read', async t => {
      await app.inject({
        method: 'POST',
        url: '/api/note',
        headers: { authorization: alice.auth },
        payload: { text: "alice's secret" }
      })
      const first = await get(app, '/api/note', alice.auth)
      t.equal(first.headers['jxp-cache'], 'miss')
      t.equal(json(first).data.length, 1)
      t.same(json(await hitOf('/api/note', alice.auth)).data, json(first).data, 'the same caller, the same read: a hit')
      const other = await get(app, '/api/note', bob.auth)
      t.equal(other.headers['jxp-cache'], 'miss', 'another caller never gets her entry')
      t.same(json(other).data, [])
      t.equal((await get(app, '/api/note')).statusCode, 401, 'anonymous')
      t.equal((await get(app, '/api/note')).statusCode, 401, 'anonymous, again')
      const id = json(first).data[0]._id
      t.equal((await get(app, `/api/note/${id}`, alice.auth)).statusCode, 200)
      t.equal((await get(app, `/api/note/${id}`, bob.auth)).statusCode, 404, 'by id')
      t.equal(json(await get(app, '/api/note', admin)).data.length, 1, 'admins see it')
      t.same(json(await hitOf('/api/note', bob.auth)).data, [], 'his own entry holds none of hers')
    })

    await t.test('a write in this app: the next read is a miss with the new value', async t => {
      const doc = json(
        await app.inject({
          method: 'POST',
          url: '/api/link',
          headers: { authorization: alice.auth },
          payload: { name: 'one', val: 1 }
        })
      ).data
      const url = `/api/test?populate=link&limit=5&filter[link_id]=${doc._id}`
      await app.inject({
        method: 'POST',
        url: '/api/test',
        headers: { authorization: alice.auth },
        payload: { foo: 'linked', link_id: doc._id }
      })
      t.equal((await get(app, url, alice.auth)).headers['jxp-cache'], 'miss')
      t.equal(json(await hitOf(url, alice.auth)).data[0].link.name, 'one')
      await app.inject({
        method: 'PUT',
        url: `/api/link/${doc._id}`,
        headers: { authorization: alice.auth },
        payload: { name: 'two' }
      })
      const after = await get(app, url, alice.auth)
      t.equal(after.headers['jxp-cache'], 'miss', 'a write to a populated model drops the entry')
      t.equal(json(after).data[0].link.name, 'two')
      await app.inject({
        method: 'POST',
        url: '/bulkwrite/link',
        headers: { authorization: admin },
        payload: [{ updateOne: { filter: { _id: doc._id }, update: { $set: { name: 'three' } } } }]
      })
      t.equal(json(await get(app, url, alice.auth)).data[0].link.name, 'three', 'bulk writes too')
    })

    await t.test('a write in another app on the same database is never followed by a stale hit', async t => {
      const other = await secondApp(t, app, CACHE)
      const doc = json(
        await app.inject({
          method: 'POST',
          url: '/api/test',
          headers: { authorization: alice.auth },
          payload: { foo: 'v0' }
        })
      ).data
      const url = `/api/test/${doc._id}`
      for (let i = 1; i <= 20; i++) {
        await get(app, url, alice.auth)
        await get(app, url, alice.auth) // cached now, or about to be
        const put = await other.inject({
          method: 'PUT',
          url,
          headers: { authorization: alice.auth },
          payload: { foo: `v${i}` }
        })
        t.equal(put.statusCode, 200)
        const read = await get(app, url, alice.auth)
        if (json(read).data.foo !== `v${i}`) t.fail(`round ${i}: a stale answer (${read.headers['jxp-cache']})`)
      }
      t.pass('20 rounds without a stale answer')
      const del = await other.inject({ method: 'DELETE', url, headers: { authorization: alice.auth } })
      t.equal(del.statusCode, 200)
      t.equal((await get(app, url, alice.auth)).statusCode, 404, 'a delete elsewhere')
    })

    await t.test(
      'listening connections cut: no stale hit while they come back, and hits after',
      { skip: engine === 'postgres' ? false : 'PostgreSQL: its listening connections are cut' },
      async t => {
        const other = await secondApp(t, app, CACHE)
        const sql = openPostgres(app.config.databaseUrl, 5000)
        t.teardown(() => sql.close())
        const doc = json(
          await app.inject({
            method: 'POST',
            url: '/api/test',
            headers: { authorization: alice.auth },
            payload: { foo: 'w0' }
          })
        ).data
        const url = `/api/test/${doc._id}`
        for (let i = 1; i <= 10; i++) {
          await hitOf(url, alice.auth)
          // Every listening connection (the change log's, in both apps), as a network cut would.
          const cut = await sql.query(
            `SELECT pg_terminate_backend(pid) AS cut FROM pg_stat_activity WHERE pid <> pg_backend_pid()
             AND (query ILIKE 'listen %' OR query LIKE '%pg_backend_pid()::text AS pid%')`
          )
          if (!cut.some(row => row.cut === true)) t.fail(`round ${i}: no listening connection to cut`)
          const put = await other.inject({
            method: 'PUT',
            url,
            headers: { authorization: alice.auth },
            payload: { foo: `w${i}` }
          })
          t.equal(put.statusCode, 200)
          const read = await get(app, url, alice.auth)
          if (json(read).data.foo !== `w${i}`) t.fail(`round ${i}: a stale answer (${read.headers['jxp-cache']})`)
        }
        t.equal(json(await hitOf(url, alice.auth)).data.foo, 'w10', 'hits again once listening again')
      }
    )

    await t.test('bounded, and administered by admins only', async t => {
      for (let i = 0; i < 60; i++) await get(app, `/api/test?limit=${i + 1}`, admin)
      const stats = await get(app, '/cache/stats', admin)
      t.equal(stats.statusCode, 200)
      t.ok(json(stats).keys <= 50, `at most CACHE_MAX_ENTRIES entries (${json(stats).keys})`)
      t.ok(json(stats).hits > 0 && json(stats).misses > 0)
      t.equal((await get(app, '/cache/stats')).statusCode, 401)
      t.equal((await get(app, '/cache/stats', alice.auth)).statusCode, 403)
      t.equal((await get(app, '/cache/clear', alice.auth)).statusCode, 403)
      await get(app, '/api/test?limit=7', admin)
      t.equal((await get(app, '/cache/clear', admin)).statusCode, 200)
      t.equal((await get(app, '/api/test?limit=7', admin)).headers['jxp-cache'], 'miss', 'cleared')
    })
  })
}
