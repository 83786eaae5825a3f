// Tells every process sharing one PostgreSQL database that users or credentials changed, so
// that each empties its credential cache (src/auth/credentials/credential-cache.ts) before the change is
// answered. PostgreSQL hands a notice to each listener on that listener's own schedule, so
// hearing one's own notice back says nothing about the others: each process's notice connection
// names itself (application_name `quire-credentials <id>`), a writer notes which processes are
// connected as it sends the notice, and waits until each has acknowledged it (a listener
// acknowledges after clearing). Listeners also clear whenever listening (re)starts, since
// notices sent while it was down are lost.
import { randomUUID } from 'node:crypto'
import type { SqlClient } from '../sql/sql-client.ts'
import { openPostgres } from './postgres-client.ts'

const NOTICE_CHANNEL = 'quire_credentials'
const ACK_CHANNEL = 'quire_credentials_ack'
const LISTENER_PREFIX = 'quire-credentials '
/** The longest a writer waits for the acknowledgements (a listening connection may be down). */
const ACK_WAIT_MS = 2000

export interface CredentialNotices {
  /** Announces a change to every process (this one included); resolves once each has cleared (or after ACK_WAIT_MS). */
  announce: () => Promise<void>
  close: () => Promise<void>
}

/** This process's notice connection, and the id its connections name themselves by. */
export interface NoticeConnection {
  client: SqlClient
  listenerId: string
}

/** A connection for this process's notices, named so that writers in other processes know it listens. */
export function openNoticeConnection(url: string, statementTimeoutMs: number): NoticeConnection {
  const listenerId = randomUUID()
  return {
    client: openPostgres(url, statementTimeoutMs, { poolSize: 1, applicationName: LISTENER_PREFIX + listenerId }),
    listenerId
  }
}

/** A notice this process sent: who has acknowledged it, and who must. */
interface Pending {
  acked: Set<string>
  expected?: string[]
  done: () => void
}

function settleIfComplete(pending: Pending): void {
  if (pending.expected?.every(id => pending.acked.has(id)) === true) pending.done()
}

/** Listens on the notice connection and calls `clear` on every notice. */
export async function listenForCredentialChanges(
  { client, listenerId }: NoticeConnection,
  clear: () => void
): Promise<CredentialNotices> {
  if (client.listen === undefined)
    throw new Error('credential notices listen through a pooled client, not a transaction')
  const pending = new Map<string, Pending>()

  const unlistenNotices = await client.listen(
    NOTICE_CHANNEL,
    notice => {
      clear()
      // Unanswered if the connection fails: the writer stops waiting after ACK_WAIT_MS.
      client
        .query('SELECT pg_notify($1, $2)', [ACK_CHANNEL, `${notice} ${listenerId}`], { cost: 'simple' })
        .catch(() => {})
    },
    clear
  )
  const unlistenAcks = await client.listen(
    ACK_CHANNEL,
    ack => {
      const [notice, listener] = ack.split(' ')
      const waiting = pending.get(notice)
      if (waiting === undefined) return
      waiting.acked.add(listener)
      settleIfComplete(waiting)
    },
    () => {}
  )

  async function announce(): Promise<void> {
    const notice = randomUUID()
    let timer: NodeJS.Timeout | undefined
    const entry: Pending = { acked: new Set(), done: () => {} }
    const allAcked = new Promise<void>(resolve => {
      entry.done = resolve
      timer = setTimeout(resolve, ACK_WAIT_MS)
    })
    pending.set(notice, entry)
    try {
      const [{ listeners }] = (await client.query(
        `SELECT pg_notify($1, $2), ARRAY(SELECT DISTINCT substr(application_name, length($3) + 1) FROM pg_stat_activity
           WHERE datname = current_database() AND starts_with(application_name, $3)) AS listeners`,
        [NOTICE_CHANNEL, notice, LISTENER_PREFIX],
        { cost: 'simple' }
      )) as Array<{ listeners: string[] }>
      entry.expected = listeners
      settleIfComplete(entry)
      await allAcked
    } finally {
      clearTimeout(timer)
      pending.delete(notice)
    }
  }
  return {
    announce,
    close: async () => {
      await unlistenNotices()
      await unlistenAcks()
    }
  }
}
