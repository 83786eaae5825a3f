// Reads a find's documents in batches (streamFind), so a large result (a CSV export)
// never sits in the process. In _id order (no sort, no search): one short keyset query
// per batch on the primary key, each under the statement budget, holding nothing
// between batches. Otherwise a server-side cursor inside one transaction, each FETCH
// under the statement timeout.
import type { FindQuery } from '../engine.ts'
import type { Model } from '../../models/model-definition.ts'
import type { SqlClient } from './sql-client.ts'
import type { SqlValue } from '../../compiler/sql-text.ts'
import { compileFind } from '../../compiler/find/compile-find.ts'

let cursors = 0

async function fetchAll(client: SqlClient, cursor: string, batchSize: number, onBatch: OnBatch): Promise<number> {
  let handed = 0
  for (;;) {
    const rows = await client.query(`FETCH ${batchSize} FROM ${cursor}`)
    if (rows.length === 0) return handed
    handed += rows.length
    await onBatch(rows.map(row => row.d as string))
    if (rows.length < batchSize) return handed
  }
}

type OnBatch = (docs: string[]) => Promise<void>

function batchRows(batchSize: number): number {
  return Math.max(1, Math.min(10_000, Math.floor(batchSize)))
}

/** The query's documents in _id order, one keyset query per batch (skip applies to the first). */
async function streamById(
  client: SqlClient,
  model: Model,
  query: FindQuery,
  size: number,
  onBatch: OnBatch
): Promise<number> {
  let handed = 0
  let after: string | undefined
  while (handed < query.limit) {
    const page = {
      ...query,
      count: false,
      limit: Math.min(size, query.limit - handed),
      skip: after === undefined ? query.skip : 0
    }
    const { text, values } = compileFind(model, page, { afterId: after })
    const docs = (await client.query(text, values)).map(row => row.d as string)
    if (docs.length === 0) return handed
    handed += docs.length
    await onBatch(docs)
    if (docs.length < page.limit) return handed
    after = (JSON.parse(docs[docs.length - 1]) as { _id: string })._id
  }
  return handed
}

/**
 * Hands the `d` column of every row of `text` to `onBatch` through a cursor, `size` rows at a time; returns the row
 * count.
 */
async function streamRows(
  client: SqlClient,
  text: string,
  values: SqlValue[],
  size: number,
  onBatch: OnBatch
): Promise<number> {
  const cursor = `quire_stream_${++cursors}`
  return await client.transaction(async tx => {
    await tx.query(`DECLARE ${cursor} NO SCROLL CURSOR FOR ${text}`, values)
    return await fetchAll(tx, cursor, size, onBatch)
  })
}

/** streamFind for the SQL engines (src/storage/engine.ts). */
export async function streamFind(
  client: SqlClient,
  model: Model,
  query: FindQuery,
  batchSize: number,
  onBatch: OnBatch
): Promise<number> {
  const size = batchRows(batchSize)
  if (query.sort.length === 0 && query.search === undefined)
    return await streamById(client, model, query, size, onBatch)
  const { text, values } = compileFind(model, { ...query, count: false }, { rankAll: true })
  return await streamRows(client, text, values, size, onBatch)
}
