// Reads a statement's rows in batches through a server-side cursor, so a large
// result (a CSV export) never sits in the process. PostgreSQL: a cursor inside one
// transaction, each FETCH under the statement timeout. PGlite (one connection for
// everything): a cursor WITH HOLD, materialized by the database when declared, so
// other queries run between the batches; it is closed when the read ends.
import type { SqlClient } from '../sql/sql-client.ts'
import type { SqlValue } from '../sql/sql-params.ts'

let cursors = 0

async function fetchAll (client: SqlClient, cursor: string, batchSize: number, onBatch: (docs: string[]) => Promise<void>): Promise<number> {
  let handed = 0
  for (;;) {
    const rows = await client.query(`FETCH ${batchSize} FROM ${cursor}`)
    if (rows.length === 0) return handed
    handed += rows.length
    await onBatch(rows.map(row => row.d as string))
    if (rows.length < batchSize) return handed
  }
}

/** Hands the `d` column of every row of `text` to `onBatch`, `batchSize` rows at a time; returns the row count. */
export async function streamRows (client: SqlClient, text: string, values: SqlValue[], batchSize: number, onBatch: (docs: string[]) => Promise<void>): Promise<number> {
  const size = Math.max(1, Math.min(10_000, Math.floor(batchSize)))
  const cursor = `quire_stream_${++cursors}`
  if (client.kind === 'postgres') {
    return await client.transaction(async tx => {
      await tx.query(`DECLARE ${cursor} NO SCROLL CURSOR FOR ${text}`, values)
      return await fetchAll(tx, cursor, size, onBatch)
    })
  }
  await client.query(`DECLARE ${cursor} NO SCROLL CURSOR WITH HOLD FOR ${text}`, values)
  try {
    return await fetchAll(client, cursor, size, onBatch)
  } finally {
    await client.query(`CLOSE ${cursor}`)
  }
}
