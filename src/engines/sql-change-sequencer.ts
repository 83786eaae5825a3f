// Gives the captured changes their positions in commit order. The capture trigger
// cannot: a transaction that started first may commit last. The sequencer numbers only
// committed entries, under an advisory lock (one sequencer at a time across every
// process), so whatever it numbers later was committed later. On PostgreSQL it then
// announces the batch with NOTIFY: the batch itself when it fits NOTIFY's 8 KB payload,
// otherwise the range of positions, which listeners read from the log.
import type { SqlClient, Row } from '../sql/sql-client.ts'
import { CHANGE_STATE, CHANGE_TABLE } from '../sql/change-capture-ddl.ts'
import type { ChangeOp, StoredChange } from './change-log.ts'

export const CHANGE_CHANNEL = 'quire_changes'
/** PostgreSQL's NOTIFY payload limit is 8000 bytes. */
const MAX_PAYLOAD_BYTES = 7900
const BATCH = 1000
const SEQUENCER_LOCK = 726354101

/** A NOTIFY payload: the changes, or the range of positions to read from the log. */
export type ChangeNotice = { changes: StoredChange[] } | { from: string, to: string }

export const CHANGE_COLUMNS = 'c.pos::text AS pos, c.at, c.model, c.op, c.doc_id, c.actor, c.doc::text AS doc'

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
 * Numbers a batch; returns its documents only when their stored size stays within $1 (about, so
 * that a batch too large to announce inline does not travel back to be parsed for nothing).
 */
const NUMBER_BATCH = `WITH batch AS (
    SELECT id, row_number() OVER (ORDER BY id) AS n FROM ${CHANGE_TABLE} WHERE pos IS NULL ORDER BY id LIMIT ${BATCH}),
  st AS (UPDATE ${CHANGE_STATE} SET head = head + (SELECT count(*) FROM batch) WHERE EXISTS (SELECT 1 FROM batch) RETURNING head - (SELECT count(*) FROM batch) AS base),
  numbered AS (UPDATE ${CHANGE_TABLE} c SET pos = st.base + batch.n FROM batch, st WHERE c.id = batch.id RETURNING c.*),
  whole AS (SELECT coalesce(sum(pg_column_size(doc)), 0) <= $1::bigint AS docs FROM numbered)
SELECT c.pos::text AS pos, c.at, c.model, c.op, c.doc_id, c.actor, CASE WHEN whole.docs THEN c.doc::text END AS doc, whole.docs
FROM numbered c, whole ORDER BY c.pos`

/** A numbered batch: how many changes, and the changes themselves when their documents were read. */
export interface NumberedBatch { count: number, changes?: StoredChange[] }

/**
 * Numbers one batch of committed, unnumbered changes (in capture order) and announces it when
 * `announce` (PostgreSQL: there, a batch too large to announce inline is not read back, as no one
 * in this process needs it: listeners read the log). Returns the batch, or 'busy' when another
 * sequencer holds the lock.
 */
export async function sequenceBatch (client: SqlClient, announce: boolean): Promise<NumberedBatch | 'busy'> {
  return await client.transaction(async tx => {
    const [lock] = await tx.query(`SELECT pg_try_advisory_xact_lock(${SEQUENCER_LOCK}) AS got`)
    if (lock.got !== true) return 'busy'
    const rows = await tx.query(NUMBER_BATCH, [announce ? MAX_PAYLOAD_BYTES : Number.MAX_SAFE_INTEGER])
    if (rows.length === 0) return { count: 0, changes: [] }
    const changes = rows[0].docs === true ? rows.map(changeOfRow) : undefined
    const notice = changes ? noticeOf(changes) : rangeNotice(String(rows[0].pos), String(rows[rows.length - 1].pos))
    if (announce) await tx.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, notice])
    return { count: rows.length, changes }
  })
}

/** True when some captured change has no position yet (one index probe). */
export async function hasUnsequenced (client: SqlClient): Promise<boolean> {
  const rows = await client.query(`SELECT EXISTS (SELECT 1 FROM ${CHANGE_TABLE} WHERE pos IS NULL) AS pending`)
  return rows[0].pending === true
}

/** Numbers every committed change: batches until none is left; `onBatch` sees each. */
export async function sequenceAll (client: SqlClient, announce: boolean, onBatch: (changes: StoredChange[]) => void): Promise<'done' | 'busy'> {
  for (;;) {
    const batch = await sequenceBatch(client, announce)
    if (batch === 'busy') return 'busy'
    if (batch.changes && batch.count > 0) onBatch(batch.changes)
    if (batch.count < BATCH) return 'done'
  }
}
