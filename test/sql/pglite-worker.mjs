// PGlite in a worker thread for the aggregation differential test: the database runs on one
// core while the reference evaluator (mingo) runs on the main thread. Messages carry
// {id, text, values}; replies carry the `doc` column of each row as JSON text, or an error.
import { parentPort } from 'node:worker_threads'
import { PGlite } from '@electric-sql/pglite'

const db = new PGlite()
const JSONB_AS_TEXT = { parsers: { 3802: text => text } }

parentPort.on('message', async ({ id, text, values }) => {
  try {
    const result = await db.query(text, values, JSONB_AS_TEXT)
    parentPort.postMessage({ id, docs: result.rows.map(row => row.doc) })
  } catch (err) {
    parentPort.postMessage({ id, error: err instanceof Error ? err.message : String(err) })
  }
})
