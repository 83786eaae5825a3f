// Tells every process sharing one PostgreSQL database that users or credentials changed, so
// that each empties its credential cache (src/auth/credential-cache.ts) before the change is
// answered: the writer sends NOTIFY and waits until its own listener hears it back (PostgreSQL
// signals every listener at the commit, so by then the others have been told too); listeners
// clear on receipt, and again whenever listening (re)starts, since notices sent while it was
// down are lost.
import { randomUUID } from 'node:crypto'
import type { SqlClient } from '../sql/sql-client.ts'

const CHANNEL = 'quire_credentials'
/** The longest a writer waits for its notice to come back (the listening connection may be down). */
const ECHO_WAIT_MS = 2000

export interface CredentialNotices {
  /** Announces a change to every process (this one included); resolves once this process has heard it back. */
  announce: () => Promise<void>
  close: () => Promise<void>
}

/** Listens on `client` (which must support LISTEN) and calls `clear` on every notice. */
export async function listenForCredentialChanges (client: SqlClient, clear: () => void): Promise<CredentialNotices> {
  if (client.listen === undefined) throw new Error('credential notices need a PostgreSQL server')
  const waiting = new Map<string, () => void>()
  const unlisten = await client.listen(CHANNEL, payload => {
    clear()
    waiting.get(payload)?.()
  }, clear)
  async function announce (): Promise<void> {
    const payload = randomUUID()
    let timer: NodeJS.Timeout | undefined
    const heard = new Promise<void>(resolve => {
      waiting.set(payload, resolve)
      timer = setTimeout(resolve, ECHO_WAIT_MS)
    })
    try {
      await client.query('SELECT pg_notify($1, $2)', [CHANNEL, payload], { cost: 'simple' })
      await heard
    } finally {
      clearTimeout(timer)
      waiting.delete(payload)
    }
  }
  return { announce, close: async () => { await unlisten() } }
}
