// The ChangeLog of the SQL engines, over the `quire_changes` table the capture trigger
// fills. Followers get every numbered change in order through LISTEN (every process hears
// every batch, and fills any gap from the table). Numbering runs after this process's writes (at
// once while someone follows, else within UNFOLLOWED_NUMBERING_MS, a batch of what came
// meanwhile) and, while someone follows, on a short poll for changes other processes captured.
// While someone follows, the log notes the last position announced to its listening connection
// (`heard`: a statement on that connection is answered only after the notifications before it).
import type { Row, SqlClient } from '../sql-client.ts'
import { CHANGE_POSITIONS, CHANGE_STATE, CHANGE_TABLE } from '../../../compiler/ddl/change-capture-ddl.ts'
import type { ChangeLog, ChangeLogRetention, StoredChange } from '../../change-log.ts'
import {
  CHANGE_CHANNEL,
  CHANGE_COLUMNS,
  changeOfRow,
  createChangeSequencer,
  type ChangeNotice
} from './sql-change-sequencer.ts'
import { createFollower, type Follower } from './sql-change-follower.ts'
import { createPacedRounds } from './paced-rounds.ts'

export interface SqlChangeLog extends ChangeLog {
  /**
   * A statement of this process may have written: number what it captured (at once when someone follows, else soon).
   */
  localWrite: () => void
  /** Stops every follower (the engine is closing). */
  close: () => Promise<void>
}

const POLL_MS = 100
/** While writes keep coming, rounds of numbering (a transaction and a NOTIFY each) start at most this often. */
const NUMBERING_PAUSE_MS = 10
/**
 * While no one follows, what this process wrote is numbered this long after, in one round with
 * whatever came meanwhile: its cost is spread over the writes instead of landing all at once
 * on the next prune or reader (a minute of steady writes is hundreds of thousands of changes).
 */
const UNFOLLOWED_NUMBERING_MS = 1000
const PRUNE_LOCK = 726354102
const POSITION = /^(0|[1-9][0-9]{0,17})$/

const READ_AFTER = `SELECT st.head::text AS head, st.pruned_through::text AS pruned_through, ${CHANGE_COLUMNS}
FROM ${CHANGE_STATE} st LEFT JOIN LATERAL (
  SELECT p.pos, c.at, c.model, c.op, c.doc_id, c.actor, c.doc
  FROM ${CHANGE_POSITIONS} p JOIN ${CHANGE_TABLE} c ON c.id = p.id
  WHERE p.pos > $1::bigint AND p.pos <= st.head ORDER BY p.pos LIMIT $2::int) c ON true
ORDER BY c.pos`

/** The last position to prune: all but the newest $1 entries, and every entry older than $2 seconds. */
const PRUNE_THROUGH = `SELECT greatest(
    (SELECT head FROM ${CHANGE_STATE}) - $1::bigint,
    (SELECT coalesce(max(p.pos), 0) FROM ${CHANGE_TABLE} c JOIN ${CHANGE_POSITIONS} p ON p.id = c.id
     WHERE c.at < now() - make_interval(secs => $2::double precision)))::text AS through`

/**
 * Entries a pruning statement deletes at most: a backlog (the first prune after a bulk import of
 * a million documents) goes in short statements, each within the statement timeout and holding a
 * connection only briefly. In one statement, 900,000 entries
 * took longer than the default 5 s timeout, so every prune failed and the log kept growing.
 */
export const PRUNE_CHUNK = 5000

/** Prunes the oldest entries up to position $1, at most PRUNE_CHUNK of them. */
const PRUNE = `WITH gone AS (DELETE FROM ${CHANGE_POSITIONS} p
    WHERE p.pos IN (SELECT pos FROM ${CHANGE_POSITIONS} WHERE pos <= $1::bigint ORDER BY pos LIMIT ${PRUNE_CHUNK})
    RETURNING p.id, p.pos),
  dropped AS (DELETE FROM ${CHANGE_TABLE} c USING gone WHERE c.id = gone.id)
UPDATE ${CHANGE_STATE} SET pruned_through = greatest(pruned_through, (SELECT max(pos) FROM gone))
RETURNING (SELECT count(*) FROM gone) AS n`

/** The listening connection's backend, whether it listens, and the head: what it hears of from then on. */
const LISTENER_STATE = `SELECT pg_backend_pid()::text AS pid,
  EXISTS (SELECT 1 FROM pg_listening_channels() c WHERE c = '${CHANGE_CHANNEL}') AS listening,
  (SELECT head::text FROM ${CHANGE_STATE}) AS head`

/** The last position a notice announces. */
const lastOfNotice = (notice: ChangeNotice): bigint =>
  BigInt('changes' in notice ? notice.changes[notice.changes.length - 1].pos : notice.to)

export function createSqlChangeLog(client: SqlClient, log: (msg: string) => void): SqlChangeLog {
  const followers = new Set<Follower>()
  let poll: NodeJS.Timeout | undefined
  let unlisten: (() => Promise<void>) | undefined
  let unfollowedNumbering: NodeJS.Timeout | undefined
  /** The last position announced to the listening connection (or its head when it began listening). */
  let heardThrough = 0n
  /** The backend of the listening connection since it last read the head; undefined while unknown. */
  let listenerPid: string | undefined

  /** Changes after `after` up to the last numbered one, or 'gone' (pruned, or never given). */
  async function readLog(after: string, limit: number): Promise<StoredChange[] | 'gone'> {
    if (!POSITION.test(after)) return 'gone'
    const rows = await client.query(READ_AFTER, [after, limit])
    const state = rows[0]
    if (BigInt(after) > BigInt(String(state.head)) || BigInt(after) < BigInt(String(state.pruned_through)))
      return 'gone'
    return rows.filter(row => row.pos !== null).map(changeOfRow)
  }

  /**
   * Numbers what is waiting, one round at a time per process; a round that finds another process numbering waits for
   * it.
   */
  const sequencer = createChangeSequencer(client)
  const numbering = createPacedRounds({
    round: async () => (await sequencer.sequenceAll()) === 'done' || !(await sequencer.hasUnsequenced()),
    pauseMs: NUMBERING_PAUSE_MS,
    retryMs: 20,
    log: msg => log(`numbering the change log failed: ${msg}`)
  })
  const requestSequencing = numbering.request

  /** Whether a note of the listener is under way. */
  let noting = false
  /** Notes which backend listens (when it does), and the head it hears of changes after. */
  function noteListener(): void {
    if (noting) return
    noting = true
    queryListener(LISTENER_STATE)
      .then(([row]) => {
        if (row.listening !== true) return
        const head = BigInt(String(row.head))
        if (head > heardThrough) heardThrough = head
        listenerPid = String(row.pid)
      })
      .catch(err => log(`reading the change log's head for its listener failed: ${(err as Error).message}`))
      .finally(() => {
        noting = false
      })
  }

  async function queryListener(text: string): Promise<Row[]> {
    if (client.queryListener === undefined) throw new Error('the change log listens through a pooled client')
    return await client.queryListener(text)
  }

  async function startFollowing(): Promise<void> {
    if (client.listen === undefined)
      throw new Error('the change log follows through a pooled client, not a transaction')
    unlisten = await client.listen(
      CHANGE_CHANNEL,
      payload => {
        const notice = JSON.parse(payload) as ChangeNotice
        const last = lastOfNotice(notice)
        if (last > heardThrough) heardThrough = last
        for (const follower of followers) 'changes' in notice ? follower.offer(notice.changes) : follower.catchUp()
      },
      () => {
        // (Re)started: notices sent while it was down are lost, so nothing is vouched for until
        // the head is read again.
        listenerPid = undefined
        noting = false // one under way may have run on the connection that went
        noteListener()
        for (const follower of followers) follower.catchUp()
      }
    )
    poll = setInterval(() => {
      sequencer.hasUnsequenced().then(
        pending => {
          if (pending) void requestSequencing()
        },
        () => {}
      )
    }, POLL_MS)
    poll.unref()
  }

  async function stopFollowing(): Promise<void> {
    listenerPid = undefined
    clearInterval(poll)
    poll = undefined
    await unlisten?.()
    unlisten = undefined
  }

  /** The last position, once every committed change has one (so that none committed before it comes later). */
  async function head(): Promise<string> {
    await requestSequencing()
    return String((await client.query(`SELECT head::text AS head FROM ${CHANGE_STATE}`))[0].head)
  }

  return {
    compare: (a, b) => {
      const d = BigInt(a) - BigInt(b)
      return d < 0n ? -1 : d > 0n ? 1 : 0
    },
    head,
    heard: async () => {
      const pid = listenerPid
      if (pid === undefined) {
        if (unlisten !== undefined) noteListener() // after a failed note: try again
        return undefined
      }
      const [row] = await queryListener('SELECT pg_backend_pid()::text AS pid')
      return String(row.pid) === pid && listenerPid === pid ? String(heardThrough) : undefined
    },
    announce: requestSequencing,
    readAfter: async (after, limit) => {
      await requestSequencing()
      return await readLog(after, limit)
    },
    follow: async deliver => {
      if (followers.size === 0) await startFollowing()
      const follower = createFollower({ start: await head(), deliver, read: readLog, log })
      followers.add(follower)
      follower.catchUp()
      return async () => {
        followers.delete(follower)
        if (followers.size === 0) await stopFollowing()
      }
    },
    prune: async (retention: ChangeLogRetention) => {
      await requestSequencing()
      const through = String((await client.query(PRUNE_THROUGH, [retention.entries, retention.seconds]))[0].through)
      for (let pruned = 0; ; ) {
        const n = await client.transaction(async tx => {
          const [lock] = await tx.query(`SELECT pg_try_advisory_xact_lock(${PRUNE_LOCK}) AS got`)
          if (lock.got !== true) return 0
          const [row] = await tx.query(PRUNE, [through])
          return Number(row.n)
        })
        pruned += n
        if (n < PRUNE_CHUNK) return pruned
      }
    },
    localWrite: () => {
      if (followers.size > 0) void requestSequencing()
      else
        unfollowedNumbering ??= setTimeout(() => {
          unfollowedNumbering = undefined
          void requestSequencing()
        }, UNFOLLOWED_NUMBERING_MS).unref()
    },
    close: async () => {
      clearTimeout(unfollowedNumbering)
      followers.clear()
      await stopFollowing()
      await numbering.idle()
    }
  }
}
