// The SQL change capture on PostgreSQL: the trigger records every write to a
// model's table (insert, update, soft delete, restore, permanent delete, whatever the
// statement), and the acting user's id reaches it from the write's own statement or
// transaction, leaving the rows the statement returns unchanged.
import t, { type Test } from 'tap'
import type { SqlClient } from '../../src/storage/sql/sql-client.ts'
import { openPostgres } from '../../src/storage/postgres/postgres-client.ts'
import { startPgCluster } from '../helpers/throwaway-cluster.ts'
import { CHANGE_LOG_DDL, captureTriggerSql } from '../../src/compiler/ddl/change-capture-ddl.ts'
import { createTableSql } from '../../src/compiler/ddl/schema-ddl.ts'
import { withChangeActor } from '../../src/storage/sql/changes/sql-change-client.ts'
import { resolveModel } from '../../src/models/load-models.ts'
import { createSqlEngine } from '../../src/storage/sql/sql-engine.ts'
import { holdOpen } from '../helpers/held-transaction.ts'

const MODEL = resolveModel({ name: 'cap', fields: { n: { type: 'number' } } })
const INTERNAL = resolveModel({
  name: '_secretive',
  fields: { user_id: { type: 'string' }, token: { type: 'string' } }
})

async function clients(t: Test): Promise<Array<[string, SqlClient]>> {
  const cluster = await startPgCluster()
  t.teardown(() => cluster.stop())
  const pg = openPostgres(cluster.url, 5000)
  t.teardown(async () => {
    await pg.close()
  })
  return [['PostgreSQL', pg]]
}

/** A query's rows as a plain array (postgres.js adds properties to its result arrays). */
const plain = async (rows: Promise<unknown[]>): Promise<unknown[]> => [...(await rows)]

type Log = Array<{ op: string; doc_id: string; actor: string | null; n: unknown }>

const readLog = async (raw: SqlClient): Promise<Log> =>
  (await raw.query("SELECT op, doc_id, actor, doc->'n' AS n FROM quire_changes ORDER BY id")) as unknown as Log

t.test('capture and actor', async t => {
  for (const [name, raw] of await clients(t)) {
    t.test(name, async t => {
      for (const sql of [
        CHANGE_LOG_DDL,
        createTableSql(MODEL),
        captureTriggerSql(MODEL),
        createTableSql(INTERNAL),
        captureTriggerSql(INTERNAL)
      ])
        await raw.exec(sql)
      let actor: string | undefined = 'user-1'
      let writes = 0
      const client = withChangeActor(raw, {
        actor: () => actor,
        wrote: () => {
          writes++
        }
      })

      const inserted = await plain(
        client.query(
          "INSERT INTO q_cap AS t (_id, doc) VALUES ($1, $2::text::jsonb) RETURNING (t.doc->'n')::text AS n",
          ['a', '{"n":1,"_deleted":false}']
        )
      )
      t.strictSame(inserted, [{ n: '1' }], 'a write with RETURNING returns its rows')
      actor = 'user-2'
      t.strictSame(
        await plain(client.query('UPDATE q_cap t SET doc = t.doc || $1::text::jsonb WHERE _id = $2', ['{"n":2}', 'a'])),
        [],
        'a write without RETURNING returns none'
      )
      t.strictSame(
        await plain(client.query('UPDATE q_cap t SET doc = t.doc || \'{"returning":1}\'::jsonb WHERE _id = $1', ['a'])),
        [],
        'a quoted RETURNING is not one'
      )
      actor = undefined
      await client.query('UPDATE q_cap t SET doc = t.doc || $1::text::jsonb WHERE _id = $2', ['{"_deleted":true}', 'a'])
      actor = 'user-3'
      await client.transaction(async tx => {
        await tx.query('UPDATE q_cap t SET doc = t.doc || $1::text::jsonb WHERE _id = $2', ['{"_deleted":false}', 'a'])
        await tx.query('UPDATE q_cap t SET doc = t.doc WHERE _id = $1', ['a'])
        await tx.query('INSERT INTO q_cap (_id, doc) VALUES ($1, $2::text::jsonb)', ['b', '{"n":5}'])
      })
      t.strictSame(
        await plain(client.query('DELETE FROM q_cap WHERE _id = $1 RETURNING _id', ['b'])),
        [{ _id: 'b' }],
        'a permanent delete returns its rows'
      )
      await client.query('INSERT INTO q__secretive (_id, doc) VALUES (\'s\', \'{"user_id":"u9","token":"digest"}\')')

      const log = await readLog(raw)
      t.strictSame(
        log.map(e => [e.op, e.doc_id, e.actor]),
        [
          ['create', 'a', 'user-1'],
          ['update', 'a', 'user-2'],
          ['update', 'a', 'user-2'],
          ['soft_delete', 'a', null],
          ['restore', 'a', 'user-3'],
          ['create', 'b', 'user-3'],
          ['permanent_delete', 'b', 'user-3'],
          ['create', 's', 'user-3']
        ],
        'every write once (an unchanged row not at all), kinds told apart, each with its actor'
      )
      t.strictSame(
        log.map(e => e.n),
        [1, 2, 2, 2, 2, 5, 5, null],
        'the document after the write (before it, when removed)'
      )
      const [secret] = await raw.query("SELECT doc FROM quire_changes WHERE doc_id = 's'")
      t.strictSame(secret.doc, { user_id: 'u9' }, 'an internal model: only its user_id is kept')
      t.equal(writes, 7, 'every write statement and transaction is reported')
      t.strictSame(await plain(client.query('SELECT count(*)::int AS n FROM q_cap')), [{ n: 1 }], 'reads pass through')
      t.equal(writes, 7, 'reads are not reported as writes')
      await raw.exec('DROP TABLE q_cap, q__secretive, quire_changes, quire_change_positions, quire_change_state')
    })
  }
})

t.test('a start on an up-to-date PostgreSQL waits for no writer', async t => {
  const cluster = await startPgCluster()
  t.teardown(() => cluster.stop())
  const starter = openPostgres(cluster.url, 5000)
  const writer = openPostgres(cluster.url, 5000)
  t.teardown(async () => {
    await starter.close()
    await writer.close()
  })
  const engine = createSqlEngine(starter)
  await engine.syncModels([MODEL, INTERNAL])

  const open = await holdOpen(writer, "INSERT INTO q_cap (_id, doc) VALUES ('w', '{\"n\":1}')")
  const second = engine.syncModels([MODEL, INTERNAL]).then(() => 'done')
  const blocked = new Promise(resolve => setTimeout(() => resolve('blocked by the open write'), 10_000))
  t.equal(
    await Promise.race([second, blocked]),
    'done',
    'a second start (another process, a restart) only reads the catalog'
  )
  await open.commit()
  await second
  t.strictSame(
    (await starter.query("SELECT op FROM quire_changes WHERE doc_id = 'w'")).map(r => r.op),
    ['create'],
    'the capture trigger still records'
  )
})
