// PGlite runs no autovacuum: src/engines/pglite-housekeeping.ts VACUUMs and ANALYZEs its tables
// once their changes pass autovacuum's thresholds, so that updated documents stop growing the
// embedded database without bound, and the planner sees the table as it is.
import t, { type Test } from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openPglite } from '../../src/engines/pglite-client.ts'
import { createSqlEngine } from '../../src/engines/sql-engine.ts'
import { createTidier, startPgliteHousekeeping, tidyTables, type Tidier } from '../../src/engines/pglite-housekeeping.ts'
import { loadModels } from '../../src/models/load-models.ts'
import type { SqlClient } from '../../src/sql/sql-client.ts'

const models = loadModels(new URL('../../models', import.meta.url).pathname)
const TEST = models.get('test')!
const DOCS = 2000
const ROUNDS = 8

async function openWithDocuments (t: Test): Promise<SqlClient> {
  const client = await openPglite(undefined)
  t.teardown(() => client.close())
  const engine = createSqlEngine(client)
  await engine.syncModels([...models.values()])
  const docs = Array.from({ length: DOCS }, (_, i) => {
    const id = i.toString(16).padStart(24, '0')
    return { _id: id, id, _deleted: false, _owner_id: null, foo: `foo-${i % 10}`, bar: 'x'.repeat(200), shmack: [], yack: { s: 'a', n: i } }
  })
  await engine.insertMany(TEST, docs)
  return client
}

const tableBytes = async (client: SqlClient): Promise<number> =>
  Number((await client.query("SELECT pg_table_size('q_test') AS n"))[0].n)

/** ROUNDS updates of every document, each followed by `between`; the table's size at the end. */
async function updateRounds (client: SqlClient, between: () => Promise<unknown>): Promise<number> {
  for (let round = 0; round < ROUNDS; round++) {
    await client.exec(`UPDATE q_test SET doc = doc || '{"bar": "round ${round} ${'y'.repeat(200)}"}'`)
    await between()
  }
  return await tableBytes(client)
}

t.test('updated documents stop growing the table once housekeeping runs', async t => {
  const untended = await openWithDocuments(t)
  const tended = await openWithDocuments(t)
  const loaded = await tableBytes(tended)
  const withoutHousekeeping = await updateRounds(untended, async () => {})
  const tidiedTables: string[][] = []
  const withHousekeeping = await updateRounds(tended, async () => tidiedTables.push(await tidyTables(tended)))
  t.ok(withoutHousekeeping > loaded * (ROUNDS - 1), `without it, every update adds a copy: ${loaded} -> ${withoutHousekeeping} bytes`)
  t.ok(withHousekeeping < loaded * 3, `with it, the space of old versions is reused: ${loaded} -> ${withHousekeeping} bytes`)
  t.ok(tidiedTables.every(tables => tables.includes('q_test')), 'q_test was due after every round of updates')
  t.notOk((await tidyTables(tended)).includes('q_test'), 'and is not due again until it changes')
  const [stats] = await tended.query("SELECT reltuples FROM pg_class WHERE relname = 'q_test'")
  t.equal(Number(stats.reltuples), DOCS, 'the planner\'s row count is the table\'s')
})

t.test('the rounds run on a timer until stopped', async t => {
  const client = await openWithDocuments(t)
  await client.exec('UPDATE q_test SET doc = doc || \'{"bar": "changed"}\'')
  const logged: string[] = []
  const housekeeping = startPgliteHousekeeping(client, msg => logged.push(msg), 50)
  const vacuums = async (): Promise<number> => {
    await client.query('SELECT pg_stat_force_next_flush()')
    return Number((await client.query("SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = 'q_test'"))[0].vacuum_count)
  }
  for (let waited = 0; waited < 10_000 && await vacuums() === 0; waited += 50) await new Promise(resolve => setTimeout(resolve, 50))
  await housekeeping.stop()
  t.equal(await vacuums(), 1, 'q_test was vacuumed once')
  t.same(logged, [], 'nothing failed (nor took a second)')
})

// PGlite forgets its change counters when it closes: they are carried over in a table.
t.test('changes made before a restart still count', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'quire-housekeeping-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  /** Opens the directory, runs `work` with this process's tidier, records the counters (as stopping housekeeping does) and closes. */
  const run = async (work: (client: SqlClient, tidier: Tidier) => Promise<unknown>): Promise<void> => {
    const client = await openPglite(dir)
    const tidier = createTidier(client)
    try {
      await work(client, tidier)
      await tidier.record()
    } finally {
      await client.close()
    }
  }
  const visiblePages = async (client: SqlClient): Promise<number> =>
    Number((await client.query("SELECT relallvisible FROM pg_class WHERE relname = 'q_test'"))[0].relallvisible)

  // A load, as `quire import` does it (then ANALYZE), by a process whose housekeeping never ran a pass.
  const loading = await openPglite(dir)
  const housekeeping = startPgliteHousekeeping(loading, () => {}, 3_600_000)
  await createSqlEngine(loading).syncModels([...models.values()])
  await loading.exec(`INSERT INTO q_test (_id, doc) SELECT lpad(to_hex(g), 24, '0'), jsonb_build_object('_deleted', false, 'bar', repeat('x', 200)) FROM generate_series(1, ${DOCS}) g`)
  await loading.exec('ANALYZE q_test')
  await housekeeping.stop()
  await loading.close()

  await run(async (client, tidier) => {
    t.equal(await visiblePages(client), 0, 'the loaded table has no page marked all-visible')
    t.ok((await tidier.pass()).includes('q_test'), 'the next process VACUUMs the loaded table')
    t.ok(await visiblePages(client) > 0, 'which marks its pages all-visible (index-only scans skip them)')
  })

  // Updates of 12% of the rows in each of two runs (under both thresholds: ANALYZE at 50 + 10%
  // modified, VACUUM at 50 + 20% dead): the second run's pass sees 24% dead.
  const updateShare = async (client: SqlClient, round: number): Promise<void> => {
    await client.exec(`UPDATE q_test SET doc = doc || '{"bar": "run ${round}"}' WHERE _id IN (SELECT _id FROM q_test ORDER BY _id LIMIT ${DOCS * 0.12})`)
  }
  await run(async (client, tidier) => {
    await updateShare(client, 1)
    t.notOk((await tidier.pass()).includes('q_test'), '12% dead rows are not due yet')
  })
  await run(async (client, tidier) => {
    await updateShare(client, 2)
    t.ok((await tidier.pass()).includes('q_test'), 'with the first run\'s 12% they are')
  })
})
