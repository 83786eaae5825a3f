// Model tables keep documents of up to a page uncompressed on PostgreSQL: a 1 KB document
// with its full-text column used to be compressed, and decompressed again by every expression that
// read it. A table created before the setting gets it at the next start.
import t from 'tap'
import { openPostgres } from '../../../../src/storage/postgres/postgres-client.ts'
import { createSqlEngine } from '../../../../src/storage/sql/sql-engine.ts'
import { loadModels } from '../../../../src/models/load-models.ts'
import type { SqlClient } from '../../../../src/storage/sql/sql-client.ts'
import { TABLE_STORAGE } from '../../../../src/compiler/ddl/schema-ddl.ts'
import { databaseUrl, ENGINES, type EngineName } from '../../../helpers/test-app.ts'

const models = loadModels(new URL('../../../../models', import.meta.url).pathname)

async function openClient(engine: EngineName): Promise<SqlClient> {
  return openPostgres(await databaseUrl(engine), 60_000)
}

/** Stored and plain size of a test document of ~1.5 KB whose full-text field makes its row pass 2 KB. */
async function storedSizes(client: SqlClient): Promise<{ stored: number; plain: number }> {
  const words = Array.from({ length: 200 }, (_, i) => `word${i % 37}`).join(' ')
  await client.exec(
    `INSERT INTO q_test (_id, doc) VALUES ('a', jsonb_build_object('_id', 'a', 'fulltext', '${words}', ` +
      `'_deleted', false))`
  )
  const [row] = await client.query(
    "SELECT pg_column_size(doc) AS stored, pg_column_size((doc::text)::jsonb) AS plain FROM q_test WHERE _id = 'a'"
  )
  return { stored: Number(row.stored), plain: Number(row.plain) }
}

for (const engine of ENGINES) {
  t.test(`${engine}: a document with its full-text column is stored uncompressed`, async t => {
    const client = await openClient(engine)
    t.teardown(() => client.close())
    await createSqlEngine(client).syncModels([...models.values()])
    const { stored, plain } = await storedSizes(client)
    t.ok(plain > 1000, `the document is ${plain} bytes`)
    t.equal(stored, plain, 'stored at its full size (compressed, it would be a fraction of it)')
  })

  t.test(`${engine}: a table created without the setting gets it when models are synced`, async t => {
    const client = await openClient(engine)
    t.teardown(() => client.close())
    await client.exec('CREATE TABLE q_test (_id text PRIMARY KEY, doc jsonb NOT NULL)')
    await createSqlEngine(client).syncModels([...models.values()])
    const [row] = await client.query("SELECT reloptions FROM pg_class WHERE oid = to_regclass('q_test')")
    t.same(row.reloptions, [TABLE_STORAGE])
    const { stored, plain } = await storedSizes(client)
    t.equal(stored, plain, 'documents written from then on are stored uncompressed')
  })
}
