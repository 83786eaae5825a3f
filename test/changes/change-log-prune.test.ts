// Pruning a change log far beyond its retention (the first prune after a bulk import): it goes in
// short statements, each deleting at most PRUNE_CHUNK entries (so each stays within the statement
// timeout however large the backlog), and leaves exactly the retained entries. In one statement,
// 900,000 entries ran past the 5 s timeout every time, and the log never shrank. The statements are
// counted by what each deleted, not timed: a loaded machine cannot change the count.
import t from 'tap'
import { openPostgres } from '../../src/storage/postgres/postgres-client.ts'
import { startPgCluster } from '../helpers/throwaway-cluster.ts'
import { resolveModel } from '../../src/models/load-models.ts'
import { createSqlEngine } from '../../src/storage/sql/sql-engine.ts'
import { createSqlChangeLog, PRUNE_CHUNK } from '../../src/storage/sql/changes/sql-change-log.ts'
import { createChangeSequencer } from '../../src/storage/sql/changes/sql-change-sequencer.ts'
import { sequenceUntilDone } from '../helpers/sequence-until-done.ts'
import type { SqlClient } from '../../src/storage/sql/sql-client.ts'

const MODEL = resolveModel({ name: 'imported', fields: { n: { type: 'number' } } })
const KEPT = 1000
const IMPORTED = KEPT + 6 * PRUNE_CHUNK + 10

/** `client`, noting how many entries each pruning statement (the one answering `n`) deleted. */
function notingPrunedCounts(client: SqlClient, counts: number[]): SqlClient {
  const noting = (inner: SqlClient): SqlClient => ({
    ...inner,
    query: async (text, values, options) => {
      const rows = await inner.query(text, values, options)
      if (rows.length === 1 && 'n' in rows[0]) counts.push(Number(rows[0].n))
      return rows
    },
    transaction: (work, options) => inner.transaction(tx => work(noting(tx)), options)
  })
  return noting(client)
}

t.test(
  'a backlog far beyond the retention is pruned in statements of at most PRUNE_CHUNK entries (PostgreSQL)',
  async t => {
    const cluster = await startPgCluster()
    t.teardown(() => cluster.stop())
    const loader = openPostgres(cluster.url, 0)
    const engine = createSqlEngine(loader)
    const pruner = openPostgres(cluster.url, 0)
    const counts: number[] = []
    t.teardown(async () => {
      await engine.close()
      await pruner.close()
    })
    await engine.syncModels([MODEL])
    await loader.query(
      `INSERT INTO q_imported (_id, doc) SELECT lpad(to_hex(n), 24, '0'), jsonb_build_object('n', n) FROM ` +
        `generate_series(1, ${IMPORTED}) n`
    )
    // The engine's own numbering round (after syncModels' write) may hold the lock meanwhile: wait for it, not for a
    // time.
    const sequencer = createChangeSequencer(loader)
    await sequenceUntilDone(sequencer)
    t.equal(await sequencer.hasUnsequenced(), false, 'every imported change is numbered before the prune')

    const log = createSqlChangeLog(notingPrunedCounts(pruner, counts), () => {})
    t.equal(
      await log.prune({ entries: KEPT, seconds: 3600 }),
      IMPORTED - KEPT,
      'every entry beyond the retention is pruned'
    )
    t.strictSame(counts, [...Array(6).fill(PRUNE_CHUNK), 10], 'in statements of at most PRUNE_CHUNK entries each')
    const [state] = await loader.query(
      'SELECT pruned_through::int AS through, (SELECT count(*)::int FROM quire_change_positions) AS ' +
        'positions, (SELECT count(*)::int FROM quire_changes) AS changes FROM quire_change_state'
    )
    t.strictSame(
      state,
      { through: IMPORTED - KEPT, positions: KEPT, changes: KEPT },
      'the newest entries stay, with their documents'
    )
    t.equal(await log.readAfter('0', 10), 'gone', 'a reader from before them is told they are gone')
    const kept = await log.readAfter(String(IMPORTED - KEPT), 10)
    t.match(
      kept,
      [{ pos: String(IMPORTED - KEPT + 1), docId: (IMPORTED - KEPT + 1).toString(16).padStart(24, '0') }],
      'one from the cut on reads the next entry'
    )
    t.equal(await log.prune({ entries: KEPT, seconds: 3600 }), 0, 'pruning again finds nothing')
    await log.close()
  }
)
