// Gives the captured changes their positions in commit order. The capture trigger
// cannot: a transaction that started first may commit last. The sequencer numbers only
// committed entries (a position is a row of its own, so the captured change is never rewritten), under an advisory lock (one sequencer at a time across every
// process), so whatever it numbers later was committed later. On PostgreSQL it then
// announces the batch with NOTIFY: the batch itself when it fits NOTIFY's 8 KB payload,
// otherwise the range of positions, which listeners read from the log.
import type { SqlClient, Row } from '../sql/sql-client.ts'
import { CHANGE_POSITIONS, CHANGE_STATE, CHANGE_TABLE } from '../sql/change-capture-ddl.ts'
import type { ChangeOp, StoredChange } from './change-log.ts'

export const CHANGE_CHANNEL = 'quire_changes'
/** PostgreSQL's NOTIFY payload limit is 8000 bytes. */
const MAX_PAYLOAD_BYTES = 7900
const BATCH = 1000
const SEQUENCER_LOCK = 726354101

/** A NOTIFY payload: the changes, or the range of positions to read from the log. */
export type ChangeNotice = { changes: StoredChange[] } | { from: string, to: string }

/** A change's columns, from `c`: a captured change with its position. */
export const CHANGE_COLUMNS = 'c.pos::text AS pos, c.at, c.model, c.op, c.doc_id, c.actor, c.doc::text AS doc'

/** The captured changes `c` with no position yet. */
export const UNNUMBERED = `NOT EXISTS (SELECT 1 FROM ${CHANGE_POSITIONS} p WHERE p.id = c.id)`

/** A row of CHANGE_COLUMNS as a StoredChange. */
export function changeOfRow (row: Row): StoredChange {
  const at = row.at instanceof Date ? row.at : new Date(String(row.at))
  return {
    pos: String(row.pos),
    model: String(row.model),
    op: row.op as ChangeOp,
    docId: String(row.doc_id),
    at: at.toISOString(),
    actor: row.actor === null ? null : String(row.actor),
    doc: row.doc === null ? null : JSON.parse(String(row.doc)) as StoredChange['doc']
  }
}

/** The payload announcing positions `from` to `to`, which listeners read from the log. */
const rangeNotice = (from: string, to: string): string => JSON.stringify({ from, to })

/** The payload announcing `changes`: inline when it fits, else their range. */
export function noticeOf (changes: StoredChange[]): string {
  const inline = JSON.stringify({ changes })
  if (Buffer.byteLength(inline) <= MAX_PAYLOAD_BYTES) return inline
  return rangeNotice(changes[0].pos, changes[changes.length - 1].pos)
}

/**
 * Numbers a batch of the changes above the floor; returns their documents only when their
 * stored size stays within $1 (about, so that a batch too large to announce inline does not
 * travel back to be parsed for nothing).
 */
const NUMBER_BATCH = `WITH batch AS (
    SELECT c.id, row_number() OVER (ORDER BY c.id) AS n FROM ${CHANGE_TABLE} c
    WHERE c.id > (SELECT floor FROM ${CHANGE_STATE}) AND ${UNNUMBERED} ORDER BY c.id LIMIT ${BATCH}),
  st AS (UPDATE ${CHANGE_STATE} SET head = head + (SELECT count(*) FROM batch) WHERE EXISTS (SELECT 1 FROM batch) RETURNING head - (SELECT count(*) FROM batch) AS base),
  p AS (INSERT INTO ${CHANGE_POSITIONS} (pos, id) SELECT st.base + batch.n, batch.id FROM batch, st RETURNING pos, id),
  numbered AS (SELECT p.pos, c.at, c.model, c.op, c.doc_id, c.actor, c.doc FROM p JOIN ${CHANGE_TABLE} c ON c.id = p.id),
  whole AS (SELECT coalesce(sum(pg_column_size(doc)), 0) <= $1::bigint AS docs FROM numbered)
SELECT n.pos::text AS pos, n.at, n.model, n.op, n.doc_id, n.actor, CASE WHEN whole.docs THEN n.doc::text END AS doc, whole.docs
FROM numbered n, whole ORDER BY n.pos`

/** Moves the floor up to $1 (every change up to it has a position, or was rolled back). */
const RAISE_FLOOR = `UPDATE ${CHANGE_STATE} SET floor = $1::bigint WHERE floor < $1::bigint`

/** The last change id given out. */
const LAST_ID = `SELECT coalesce(pg_sequence_last_value(pg_get_serial_sequence('${CHANGE_TABLE}', 'id')::regclass), 0)::text AS last_id`

/** The sequencer's lock, the oldest transaction still running and the next one to be given an id (the snapshot's xmin and xmax). */
const LOCK_AND_SNAPSHOT = `SELECT pg_try_advisory_xact_lock(${SEQUENCER_LOCK}) AS got,
  pg_snapshot_xmin(s)::text AS xmin, pg_snapshot_xmax(s)::text AS xmax FROM pg_current_snapshot() s`

/** A numbered batch: how many changes, and the changes themselves when their documents were read. */
interface NumberedBatch { count: number, changes?: StoredChange[] }

export interface ChangeSequencer {
  /** Numbers every committed change: batches until none is left; `onBatch` sees each. */
  sequenceAll: (announce: boolean, onBatch: (changes: StoredChange[]) => void) => Promise<'done' | 'busy'>
  /** True when some captured change has no position yet (one index probe). */
  hasUnsequenced: () => Promise<boolean>
}

/**
 * A sequencer over `client`. It searches for unnumbered changes above a floor kept in the state
 * row: every change with a lower id has a position (or was rolled back). Without it, every batch
 * (and every follower's poll) would probe the positions of the whole log, numbered or not.
 * The floor moves in two steps. A batch notes the last id given out (S), then, inside its
 * transaction (any isolation level: a later snapshot), the next transaction id to be given out
 * (X): a change with id <= S was captured by a transaction that had its id before X (the capture
 * trigger runs after its row's write, and the identity sequence hands out ids uncached, so none
 * lower is taken later). Once every transaction older than X has ended (a snapshot's xmin >= X),
 * every change <= S is visible or gone, and once a committed batch has numbered all the visible
 * ones, the floor becomes S. Any process's sequencer may raise it; each tracks its own S and X.
 */
export function createChangeSequencer (client: SqlClient): ChangeSequencer {
  let candidate: { lastId: string, xmax: string } | undefined

  /**
   * Numbers one batch of committed, unnumbered changes (in capture order) and announces it when
   * `announce` (PostgreSQL: there, a batch too large to announce inline is not read back, as no
   * one in this process needs it: listeners read the log). Returns the batch, or 'busy' when
   * another sequencer holds the lock.
   */
  const sequenceBatch = async (announce: boolean): Promise<NumberedBatch | 'busy'> => {
    const lastId = candidate === undefined ? String((await client.query(LAST_ID))[0].last_id) : undefined
    const outcome = await client.transaction(async tx => await numberBatch(tx, announce))
    if (outcome === 'busy') return outcome
    // Only now that the batch is committed: the floor passes the changes it numbered.
    if (outcome.drained && candidate !== undefined && BigInt(outcome.xmin) >= BigInt(candidate.xmax)) {
      await client.query(RAISE_FLOOR, [candidate.lastId])
      candidate = undefined
    }
    if (candidate === undefined && lastId !== undefined) candidate = { lastId, xmax: outcome.xmax }
    return outcome.batch
  }

  /** One batch, and what the floor needs: whether it took every visible change after the floor, and its snapshot's xmin and xmax. */
  const numberBatch = async (tx: SqlClient, announce: boolean): Promise<{ batch: NumberedBatch, drained: boolean, xmin: string, xmax: string } | 'busy'> => {
    const [snapshot] = await tx.query(LOCK_AND_SNAPSHOT)
    if (snapshot.got !== true) return 'busy'
    const rows = await tx.query(NUMBER_BATCH, [announce ? MAX_PAYLOAD_BYTES : Number.MAX_SAFE_INTEGER])
    const state = { drained: rows.length < BATCH, xmin: String(snapshot.xmin), xmax: String(snapshot.xmax) }
    if (rows.length === 0) return { batch: { count: 0, changes: [] }, ...state }
    const changes = rows[0].docs === true ? rows.map(changeOfRow) : undefined
    const notice = changes ? noticeOf(changes) : rangeNotice(String(rows[0].pos), String(rows[rows.length - 1].pos))
    if (announce) await tx.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, notice])
    return { batch: { count: rows.length, changes }, ...state }
  }

  return {
    sequenceAll: async (announce, onBatch) => {
      for (;;) {
        const batch = await sequenceBatch(announce)
        if (batch === 'busy') return 'busy'
        if (batch.changes && batch.count > 0) onBatch(batch.changes)
        if (batch.count < BATCH) return 'done'
      }
    },
    hasUnsequenced: async () => {
      const rows = await client.query(`SELECT EXISTS (SELECT 1 FROM ${CHANGE_TABLE} c WHERE c.id > (SELECT floor FROM ${CHANGE_STATE}) AND ${UNNUMBERED}) AS pending`)
      return rows[0].pending === true
    }
  }
}
