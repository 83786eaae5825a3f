// Tells every process sharing one PostgreSQL database that users or credentials changed, so
// that each empties its credential cache (src/auth/credential-cache.ts) before the change is
// answered: the writer sends NOTIFY and waits for it, listeners clear on receipt, and clear
// again whenever listening (re)starts, since notices sent while it was down are lost.
import type { SqlClient } from '../sql/sql-client.ts'

const CHANNEL = 'quire_credentials'

export interface CredentialNotices {
  /** Announces a change to every process (this one included); resolves once the notice is sent. */
  announce: () => Promise<void>
  close: () => Promise<void>
}

/** Listens on `client` (which must support LISTEN) and calls `clear` on every notice. */
export async function listenForCredentialChanges (client: SqlClient, clear: () => void): Promise<CredentialNotices> {
  if (client.listen === undefined) throw new Error('credential notices need a PostgreSQL server')
  const unlisten = await client.listen(CHANNEL, clear, clear)
  return {
    announce: async () => { await client.query('SELECT pg_notify($1, $2)', [CHANNEL, ''], { cost: 'simple' }) },
    close: async () => { await unlisten() }
  }
}
