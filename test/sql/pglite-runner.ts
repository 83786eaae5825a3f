// Worker thread of the differential test: loads the documents into an in-memory PGlite and
// runs the statements it was given, so that PGlite and the mingo oracle use both cores.
import { parentPort, workerData } from 'node:worker_threads'
import { PGlite } from '@electric-sql/pglite'
import { INDEX_SCANS, loadDocuments, selectIds, type Outcome, type Query, type Statement } from './differential-db.ts'

const { docs, statements } = workerData as { docs: unknown[], statements: Statement[] }
const db = new PGlite()
const query: Query = async (text, values) => (await db.query<Record<string, unknown>>(text, values)).rows
await loadDocuments(query, docs)
for (const [name, value] of Object.entries(INDEX_SCANS)) await query(`SET ${name} = ${value}`, [])
const outcomes: Outcome[] = []
for (const statement of statements) outcomes.push(await selectIds(query, statement))
await db.close()
parentPort?.postMessage(outcomes)
