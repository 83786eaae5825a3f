// A digest of everything a store holds: every table of the public schema
// (documents, users, credentials, and any table added later), read with SQL.
// Equal digests mean that not one stored row changed, apart from the change log's
// numbering, which a server does in the background (the captured changes themselves
// are compared; their positions are not). Taken while no Quire server runs on the store; on the
// embedded default the DATA_DIR's server is started (or shared) for it as any `quire` command
// does, and stopped again afterwards when nobody else uses it.
import { createHash } from 'node:crypto'
import { openPostgres } from '../src/storage/postgres/postgres-client.ts'
import type { SqlClient } from '../src/storage/sql/sql-client.ts'
import { quoteIdent, quoteLiteral } from '../src/compiler/sql-text.ts'
import { CHANGE_POSITIONS, CHANGE_STATE } from '../src/compiler/ddl/change-capture-ddl.ts'
import { withStore, type Store } from '../bench/store.ts'

export interface StoreDigest {
  /** sha256 over every table's rows. */
  digest: string
  /** Rows per table. */
  counts: Record<string, number>
}

/** Columns a server fills in the background whatever the requests: the change log's head and floor. */
const BOOKKEEPING: Record<string, string[]> = { [CHANGE_STATE]: ['head', 'floor'] }
/** Tables a server fills in the background: the positions given to captured changes. */
const BOOKKEEPING_TABLES = new Set([CHANGE_POSITIONS])

/** Each row of `table` as text, without its bookkeeping columns. */
function rowText(table: string): string {
  const left = BOOKKEEPING[table]
  return left === undefined ? 'r::text' : `(to_jsonb(r) - ARRAY[${left.map(quoteLiteral).join(', ')}])::text`
}

export async function digestStore(store: Store): Promise<StoreDigest> {
  return await withStore(
    store,
    () => {},
    async () => await digest(openPostgres(store.url, 120_000))
  )
}

async function digest(client: SqlClient): Promise<StoreDigest> {
  try {
    const tables = (
      await client.query(
        "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' AND " +
          "table_type = 'BASE TABLE' ORDER BY 1"
      )
    ).filter(row => !BOOKKEEPING_TABLES.has(String(row.t)))
    const hash = createHash('sha256')
    const counts: Record<string, number> = {}
    for (const { t } of tables as Array<{ t: string }>) {
      const [row] = await client.query(
        `SELECT count(*) AS n, md5(coalesce(string_agg(x, E'\\n' ORDER BY x), '')) AS d FROM ` +
          `(SELECT ${rowText(t)} AS x FROM ${quoteIdent(t)} r) s`
      )
      counts[t] = Number(row.n)
      hash.update(`${t}:${row.n}:${row.d}\n`)
    }
    return { digest: hash.digest('hex'), counts }
  } finally {
    await client.close()
  }
}
