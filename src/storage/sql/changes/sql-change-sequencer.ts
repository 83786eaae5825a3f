// Gives the captured changes their positions in commit order. The capture trigger
// cannot: a transaction that started first may commit last. The sequencer numbers only
// committed entries (a position is a row of its own: the captured change is never rewritten),
// under an advisory lock (one sequencer at a time across every process), so whatever it
// numbers later was committed later. On PostgreSQL it then
// announces the batch with NOTIFY: the batch itself when it fits NOTIFY's 8 KB payload,
// otherwise the range of positions, which listeners read from the log.
import type { SqlClient, Row } from '../sql-client.ts'
import { CHANGE_POSITIONS, CHANGE_STATE, CHANGE_TABLE } from '../../../compiler/ddl/change-capture-ddl.ts'
import type { ChangeOp, StoredChange } from '../../change-log.ts'

export const CHANGE_CHANNEL = 'quire_changes'
/** PostgreSQL's NOTIFY payload limit is 8000 bytes. */
const MAX_PAYLOAD_BYTES = 7900
const BATCH = 1000
const SEQUENCER_LOCK = 726354101

/** A NOTIFY payload: the changes, or the range of positions to read from the log. */
export type ChangeNotice = { changes: StoredChange[] } | { from: string; to: string }

/** A change's columns, from `c`: a captured change with its position. */
export const CHANGE_COLUMNS = 'c.pos::text AS pos, c.at, c.model, c.op, c.doc_id, c.actor, c.doc::text AS doc'

/**
 * The captured changes `c` above `floor` with no position yet. Both sides are bounded by the
 * floor: PostgreSQL merges the two id indexes, and an unbounded side is read from its start.
 */
const unnumberedAbove = (floor: string): string =>
  `c.id > ${floor} AND NOT EXISTS (SELECT 1 FROM ${CHANGE_POSITIONS} p WHERE p.id = c.id AND p.id > ${floor})`

/** The captured changes `c` with no position yet. */
export const UNNUMBERED = unnumberedAbove('0')

/** A row of CHANGE_COLUMNS as a StoredChange. */
export function changeOfRow(row: Row): StoredChange {
  const at = row.at instanceof Date ? row.at : new Date(String(row.at))
  return {
    pos: String(row.pos),
    model: String(row.model),
    op: row.op as ChangeOp,
    docId: String(row.doc_id),
    at: at.toISOString(),
    actor: row.actor === null ? null : String(row.actor),
    doc: row.doc === null ? null : (JSON.parse(String(row.doc)) as StoredChange['doc'])
  }
}

/** The payload announcing positions `from` to `to`, which listeners read from the log. */
const rangeNotice = (from: string, to: string): string => JSON.stringify({ from, to })

/** The payload announcing `changes`: inline when it fits, else their range. */
function noticeOf(changes: StoredChange[]): string {
  const inline = JSON.stringify({ changes })
  if (Buffer.byteLength(inline) <= MAX_PAYLOAD_BYTES) return inline
  return rangeNotice(changes[0].pos, changes[changes.length - 1].pos)
}

/**
 * Numbers a batch of the changes above the floor ($2); returns their documents only when their
 * stored size stays within $1 (about, so that a batch too large to announce inline does not
 * travel back to be parsed for nothing). The floor is a parameter, not a subquery: planned for
 * its value, the search is an index scan from it; planned for an unknown one, PostgreSQL guessed
 * a third of the log and read all of it (a sequential scan and a hash anti-join) every batch.
 * Likewise the base position is a scalar: joined as a row of the state table (which is never
 * analyzed, so guessed at 1,540 rows), the batch looked 1.5 million rows long, and PostgreSQL
 * hashed the whole log (spilling to disk) to read back its 1,000 changes.
 */
const NUMBER_BATCH = `WITH batch AS (
    SELECT c.id, row_number() OVER (ORDER BY c.id) AS n FROM ${CHANGE_TABLE} c
    WHERE ${unnumberedAbove('$2::bigint')} ORDER BY c.id LIMIT ${BATCH}),
  st AS (UPDATE ${CHANGE_STATE} SET head = head + (SELECT count(*) FROM batch) WHERE EXISTS (SELECT 1 FROM batch)
    RETURNING head - (SELECT count(*) FROM batch) AS base),
  p AS (INSERT INTO ${CHANGE_POSITIONS} (pos, id) SELECT (SELECT base FROM st) + batch.n, batch.id FROM batch
    RETURNING pos, id),
  numbered AS (SELECT p.pos, c.id, c.at, c.model, c.op, c.doc_id, c.actor, c.doc
    FROM p JOIN ${CHANGE_TABLE} c ON c.id = p.id),
  whole AS (SELECT coalesce(sum(pg_column_size(doc)), 0) <= $1::bigint AS docs, max(id)::text AS last_id FROM numbered)
SELECT n.pos::text AS pos, n.at, n.model, n.op, n.doc_id, n.actor, CASE WHEN whole.docs THEN n.doc::text END AS doc,
  whole.docs, whole.last_id
FROM numbered n, whole ORDER BY n.pos`

/** Moves the floor up to $1 (every change up to it has a position, or was rolled back). */
const RAISE_FLOOR = `UPDATE ${CHANGE_STATE} SET floor = $1::bigint WHERE floor < $1::bigint`

/** The last change id given out. */
const LAST_ID = `SELECT coalesce(pg_sequence_last_value(pg_get_serial_sequence('${CHANGE_TABLE}', 'id')::regclass), 0)
  ::text AS last_id`

/** The floor. */
const FLOOR = `SELECT floor::text AS floor FROM ${CHANGE_STATE}`

/**
 * The sequencer's lock, the floor, the oldest transaction still running (the snapshot's xmin) and
 * this transaction's own id, given to it now: higher than every id given before. Not the
 * snapshot's xmax, which is one past the last transaction to have ended: a transaction still
 * running (a bulk import, the only writer) may hold that very id, and the xmin of the next
 * snapshots equals it while it runs.
 */
const LOCK_AND_SNAPSHOT = `SELECT pg_try_advisory_xact_lock(${SEQUENCER_LOCK}) AS got, (${FLOOR}) AS floor,
  pg_snapshot_xmin(pg_current_snapshot())::text AS xmin, pg_current_xact_id()::text AS xid`

/** Whether a change above the floor ($1) has no position. */
const ANY_UNNUMBERED = `SELECT EXISTS (SELECT 1 FROM ${CHANGE_TABLE} c
  WHERE ${unnumberedAbove('$1::bigint')}) AS pending`

/** A numbered batch: how many changes, and the changes themselves when their documents were read. */
interface NumberedBatch {
  count: number
  changes?: StoredChange[]
}

export interface ChangeSequencer {
  /** Numbers every committed change and announces each batch: batches until none is left. */
  sequenceAll: () => Promise<'done' | 'busy'>
  /** True when some captured change has no position yet (the floor, then an index scan from it). */
  hasUnsequenced: () => Promise<boolean>
}

/**
 * A sequencer over `client`. It searches for unnumbered changes above a floor kept in the state
 * row: every change with a lower id has a position (or was rolled back). Without it, every batch
 * (and every follower's poll) would probe the positions of the whole log, numbered or not.
 * The floor moves in two steps. A batch notes the last id given out (S), then, inside its
 * transaction, takes a transaction id of its own (X): a change with id <= S was captured by a
 * transaction that had its id before X (the capture trigger runs after its row's write, and the
 * identity sequence hands out ids uncached, so none lower is taken later). Once every
 * transaction older than X has ended (a later snapshot's xmin >= X), every change <= S is
 * visible or gone. A committed batch with such a snapshot took the lowest
 * unnumbered ids first, so it left none up to the last id it numbered (none at all when it took
 * fewer than a batch): the floor rises to that, or to S when that is above it, and once at S the
 * next batch notes the next S. So under a steady stream of writes the floor trails the last
 * numbered change by about two batches, and a batch walks no more numbered changes than that
 * (numbering a long backlog, by one batch). Any process's sequencer may raise the floor; each
 * tracks its own S and X.
 */
export function createChangeSequencer(client: SqlClient): ChangeSequencer {
  let candidate: { lastId: string; xid: string } | undefined

  /**
   * Numbers one batch of committed, unnumbered changes (in capture order) and announces it (a
   * batch too large to announce inline is not read back, as no one in this process needs it:
   * listeners read the log). Returns the batch, or 'busy' when another sequencer holds the lock.
   */
  const sequenceBatch = async (): Promise<NumberedBatch | 'busy'> => {
    const lastId = candidate === undefined ? String((await client.query(LAST_ID))[0].last_id) : undefined
    const outcome = await client.transaction(async tx => await numberBatch(tx))
    if (outcome === 'busy') return outcome
    // Only now that the batch is committed: the floor passes the changes it numbered.
    if (candidate !== undefined && BigInt(outcome.xmin) >= BigInt(candidate.xid)) {
      const through = outcome.numberedThrough(BigInt(candidate.lastId))
      if (through > outcome.floor) await client.query(RAISE_FLOOR, [String(through)])
      if (through === BigInt(candidate.lastId)) candidate = undefined
    }
    if (candidate === undefined && lastId !== undefined) candidate = { lastId, xid: outcome.xid }
    return outcome.batch
  }

  /**
   * One batch, and what the floor needs: the floor it started from, its snapshot's xmin, its own transaction id,
   * and up to which id, at most `upTo`, it left no visible change unnumbered.
   */
  const numberBatch = async (
    tx: SqlClient
  ): Promise<
    | { batch: NumberedBatch; floor: bigint; numberedThrough: (upTo: bigint) => bigint; xmin: string; xid: string }
    | 'busy'
  > => {
    const [snapshot] = await tx.query(LOCK_AND_SNAPSHOT)
    if (snapshot.got !== true) return 'busy'
    const rows = await tx.query(NUMBER_BATCH, [MAX_PAYLOAD_BYTES, String(snapshot.floor)])
    const drained = rows.length < BATCH
    const lastId = rows.length > 0 ? BigInt(String(rows[0].last_id)) : 0n
    const state = {
      floor: BigInt(String(snapshot.floor)),
      numberedThrough: (upTo: bigint) => (drained || lastId >= upTo ? upTo : lastId),
      xmin: String(snapshot.xmin),
      xid: String(snapshot.xid)
    }
    if (rows.length === 0) return { batch: { count: 0, changes: [] }, ...state }
    const changes = rows[0].docs === true ? rows.map(changeOfRow) : undefined
    const notice = changes ? noticeOf(changes) : rangeNotice(String(rows[0].pos), String(rows[rows.length - 1].pos))
    await tx.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, notice])
    return { batch: { count: rows.length, changes }, ...state }
  }

  return {
    sequenceAll: async () => {
      for (;;) {
        const batch = await sequenceBatch()
        if (batch === 'busy') return 'busy'
        if (batch.count < BATCH) return 'done'
      }
    },
    hasUnsequenced: async () => {
      const [{ floor }] = await client.query(FLOOR)
      return (await client.query(ANY_UNNUMBERED, [String(floor)]))[0].pending === true
    }
  }
}
