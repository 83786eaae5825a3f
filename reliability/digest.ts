// A digest of everything a store holds: every table of the public schema
// (documents, users, credentials, and any table added later), read with SQL.
// Equal digests mean that not one stored row changed. Taken while no server
// uses the store (PGlite admits one process at a time).
import { createHash } from 'node:crypto'
import { openPglite } from '../src/engines/pglite-client.ts'
import { openPostgres } from '../src/engines/postgres-client.ts'
import type { SqlClient } from '../src/sql/sql-client.ts'
import { quoteIdent } from '../src/sql/quote.ts'

export interface StoreDigest {
  /** sha256 over every table's rows. */
  digest: string
  /** Rows per table. */
  counts: Record<string, number>
}

async function openStore (url: string): Promise<SqlClient> {
  if (url.startsWith('pglite://')) return await openPglite(url.slice('pglite://'.length))
  return openPostgres(url, 120_000)
}

export async function digestStore (url: string): Promise<StoreDigest> {
  const client = await openStore(url)
  try {
    const tables = await client.query("SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1")
    const hash = createHash('sha256')
    const counts: Record<string, number> = {}
    for (const { t } of tables as Array<{ t: string }>) {
      const [row] = await client.query(`SELECT count(*) AS n, md5(coalesce(string_agg(r::text, E'\\n' ORDER BY r::text), '')) AS d FROM ${quoteIdent(t)} r`)
      counts[t] = Number(row.n)
      hash.update(`${t}:${row.n}:${row.d}\n`)
    }
    return { digest: hash.digest('hex'), counts }
  } finally {
    await client.close()
  }
}
