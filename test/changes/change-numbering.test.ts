// Numbering without followers: what a process writes while no one follows its change feed is
// numbered within about a second (one round for what came meanwhile), not left for the next
// prune (every minute) or reader to number all at once. On PostgreSQL (a throwaway cluster per test).
// The sequencer's floor (where it starts looking for unnumbered changes) never passes a change
// whose transaction is still open, however many later ones it numbers meanwhile.
import t from 'tap'
import type { SqlClient } from '../../src/storage/sql/sql-client.ts'
import { openPostgres } from '../../src/storage/postgres/postgres-client.ts'
import { startPgCluster } from '../helpers/throwaway-cluster.ts'
import { resolveModel } from '../../src/models/load-models.ts'
import { createSqlEngine } from '../../src/storage/sql/sql-engine.ts'
import { UNNUMBERED, createChangeSequencer } from '../../src/storage/sql/changes/sql-change-sequencer.ts'
import { holdOpen } from '../helpers/held-transaction.ts'
import { sequenceUntilDone } from '../helpers/sequence-until-done.ts'

const MODEL = resolveModel({ name: 'numbered', fields: { n: { type: 'number' } } })
const WRITES = 30
const POSITIONS_IN_CAPTURE_ORDER =
  'SELECT p.pos::int AS pos FROM quire_changes c LEFT JOIN quire_change_positions p ON p.id = c.id ORDER BY c.id'

const unnumbered = async (client: SqlClient): Promise<number> =>
  Number((await client.query(`SELECT count(*)::int AS n FROM quire_changes c WHERE ${UNNUMBERED}`))[0].n)

/** Polls until no change waits for a position, for at most `ms`; returns how many still wait. */
async function settled(client: SqlClient, ms: number): Promise<number> {
  const until = Date.now() + ms
  for (;;) {
    const waiting = await unnumbered(client)
    if (waiting === 0 || Date.now() > until) return waiting
    await new Promise(resolve => setTimeout(resolve, 100))
  }
}

t.test('what a process writes with no follower is numbered soon after (PostgreSQL)', async t => {
  const cluster = await startPgCluster()
  t.teardown(() => cluster.stop())
  const client = openPostgres(cluster.url, 5000)
  const engine = createSqlEngine(client)
  t.teardown(() => engine.close()) // closes the client too
  await engine.syncModels([MODEL])
  await Promise.all(
    Array.from({ length: WRITES }, (_, n) =>
      engine.insert(MODEL, { _id: (0x1000 + n).toString(16).padStart(24, '0'), n })
    )
  )
  t.equal(await settled(client, 5000), 0, 'numbered soon after, with no follower, reader or prune')
  const positions = await client.query(POSITIONS_IN_CAPTURE_ORDER)
  t.strictSame(
    positions.map(row => row.pos),
    Array.from({ length: WRITES }, (_, i) => i + 1),
    'in capture order, from 1'
  )
})

t.test('a change committed after later ones were numbered still gets its position (PostgreSQL)', async t => {
  const cluster = await startPgCluster()
  t.teardown(() => cluster.stop())
  const [holder, writer, numberer] = [0, 1, 2].map(() => openPostgres(cluster.url, 5000))
  const engine = createSqlEngine(writer)
  t.teardown(async () => {
    await engine.close()
    await holder.close()
    await numberer.close()
  })
  await engine.syncModels([MODEL])
  const sequencer = createChangeSequencer(numberer)
  const positionOf = async (id: string): Promise<unknown> =>
    (
      await numberer.query(
        'SELECT p.pos::int AS pos FROM quire_changes c JOIN quire_change_positions p ON p.id = c.id WHERE ' +
          'c.doc_id = $1',
        [id]
      )
    )[0]?.pos

  const open = await holdOpen(holder, 'INSERT INTO q_numbered (_id, doc) VALUES ($1, $2::jsonb)', ['held', '{"n":1}'])
  for (let round = 0; round < 4; round++) {
    await writer.query('INSERT INTO q_numbered (_id, doc) VALUES ($1, $2::jsonb)', [`later-${round}`, '{"n":2}'])
    await sequenceUntilDone(sequencer)
  }
  t.equal(await positionOf('later-3'), 4, 'the later changes are numbered while the first is open')
  t.equal(await positionOf('held'), undefined, 'the open one is not (nor visible)')
  await open.commit()
  await sequenceUntilDone(sequencer)
  t.equal(await positionOf('held'), 5, 'once committed, it is numbered after them')
  t.equal(await sequencer.hasUnsequenced(), false)

  // More than one batch (1,000) waits: the floor passes none of them before its batch numbered it.
  await writer.query(
    "INSERT INTO q_numbered (_id, doc) SELECT 'bulk-' || n, '{\"n\":3}'::jsonb FROM generate_series(1, 2500) n"
  )
  await sequenceUntilDone(sequencer)
  t.equal(await unnumbered(numberer), 0, 'every one of them is numbered')
  t.equal(await positionOf('bulk-2500'), 2505, 'in capture order, after the others')
})

// The one writer of a quiet database (a bulk import): its transaction was the last to get an id and
// nothing has ended since, so a snapshot's xmax is that very id, and its xmin still equals it
// while it runs. The floor must not pass the ids it took however many rounds run meanwhile.
t.test('the only open transaction, with nothing committed after it, still gets its positions (PostgreSQL)', async t => {
  const cluster = await startPgCluster()
  t.teardown(() => cluster.stop())
  const [holder, numberer] = [0, 1].map(() => openPostgres(cluster.url, 5000))
  const engine = createSqlEngine(holder)
  t.teardown(async () => {
    await engine.close()
    await numberer.close()
  })
  await engine.syncModels([MODEL])
  const sequencer = createChangeSequencer(numberer)

  const open = await holdOpen(
    holder,
    "INSERT INTO q_numbered (_id, doc) SELECT 'import-' || n, '{\"n\":1}'::jsonb FROM generate_series(1, 3) n"
  )
  for (let round = 0; round < 3; round++) await sequenceUntilDone(sequencer)
  await open.commit()
  await sequenceUntilDone(sequencer)
  t.equal(await unnumbered(numberer), 0, 'once committed, every change of the import is numbered')
  t.equal(await sequencer.hasUnsequenced(), false)

  // A database that the sequencer before the fix left with its floor above changes without positions.
  await holder.query("INSERT INTO q_numbered (_id, doc) VALUES ('passed-over', '{\"n\":2}')")
  await numberer.query('UPDATE quire_change_state SET floor = (SELECT max(id) FROM quire_changes) + 1')
  await numberer.query('COMMENT ON FUNCTION quire_capture_change() IS NULL') // the change log's DDL of an older version
  t.equal(await sequencer.hasUnsequenced(), false, 'a floor above a change hides it')
  await engine.syncModels([MODEL])
  t.equal(await sequencer.hasUnsequenced(), true, 'the first start of this version lowers the floor below it')
  await sequenceUntilDone(sequencer)
  t.equal(await unnumbered(numberer), 0, 'and it is numbered')
})

t.test(
  'a log from before positions had their own table keeps its positions and numbers the rest after them (PostgreSQL)',
  async t => {
    const cluster = await startPgCluster()
    t.teardown(() => cluster.stop())
    const client = openPostgres(cluster.url, 5000)
    await client.exec(`
    CREATE TABLE quire_changes (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, pos bigint UNIQUE,
      at timestamptz NOT NULL DEFAULT now(), model text NOT NULL, op text NOT NULL, doc_id text NOT NULL,
      actor text, doc jsonb);
    CREATE INDEX quire_changes_unsequenced ON quire_changes (id) WHERE pos IS NULL;
    CREATE TABLE quire_change_state (one boolean PRIMARY KEY DEFAULT true CHECK (one),
      head bigint NOT NULL DEFAULT 0, pruned_through bigint NOT NULL DEFAULT 0);
    INSERT INTO quire_change_state (head) VALUES (2);
    INSERT INTO quire_changes (pos, model, op, doc_id)
      VALUES (2, 'numbered', 'create', 'b'), (1, 'numbered', 'create', 'a'), (NULL, 'numbered', 'create', 'c')`)
    const engine = createSqlEngine(client)
    t.teardown(() => engine.close())
    await engine.syncModels([MODEL])
    const columns = await client.query(
      "SELECT column_name AS c FROM information_schema.columns WHERE table_name = 'quire_changes' AND " +
        "column_name = 'pos'"
    )
    // a plain array: postgres.js adds properties to its result arrays
    t.strictSame([...columns], [], 'the old column is gone')
    await engine.insert(MODEL, { _id: 'd'.repeat(24), n: 1 })
    t.equal(await settled(client, 5000), 0)
    const positions = await client.query(
      'SELECT c.doc_id, p.pos::int AS pos FROM quire_changes c JOIN quire_change_positions p ON p.id = ' +
        'c.id ORDER BY p.pos'
    )
    t.strictSame(
      positions.map(row => [row.doc_id, row.pos]),
      [
        ['a', 1],
        ['b', 2],
        ['c', 3],
        ['d'.repeat(24), 4]
      ],
      'the given positions stay; the unnumbered change and a new one come after them'
    )
  }
)
