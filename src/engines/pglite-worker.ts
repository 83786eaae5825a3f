// Runs PGlite in a worker thread, so its queries never block the server's event
// loop. Answers the messages sent by pglite-client.ts, one reply per request.
import { parentPort, workerData } from 'node:worker_threads'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { PGlite, type Transaction } from '@electric-sql/pglite'
import { readTemplate } from './pglite-template.ts'

export type WorkerRequest =
  | { id: number, op: 'query', text: string, values: unknown[], tx?: number }
  | { id: number, op: 'exec', text: string, tx?: number }
  | { id: number, op: 'begin' }
  | { id: number, op: 'end', tx: number, commit: boolean }
  | { id: number, op: 'close' }

export type WorkerReply =
  | { id: number, ok: true, rows?: unknown[], tx?: number }
  | { id: number, ok: false, message: string, code?: string, constraint?: string }

const port = parentPort!
const dataDir: string | undefined = workerData.dataDir
/** A database without a data directory yet starts from the built template (no initdb) when there is one. */
const isNew = !dataDir || !existsSync(join(dataDir, 'PG_VERSION'))
const db = await PGlite.create({ dataDir, loadDataDir: isNew ? readTemplate() : undefined })

/** Open transactions, each waiting for its 'end' message. */
const transactions = new Map<number, { tx: Transaction, finish: (commit: boolean) => void }>()
let nextTx = 1

function runner (tx?: number): PGlite | Transaction {
  if (tx === undefined) return db
  const open = transactions.get(tx)
  if (!open) throw new Error(`transaction ${tx} is not open`)
  return open.tx
}

function beginTransaction (): Promise<number> {
  return new Promise((resolve, reject) => {
    db.transaction(async tx => {
      const txId = nextTx++
      const commit = await new Promise<boolean>(finish => {
        transactions.set(txId, { tx, finish })
        resolve(txId)
      })
      transactions.delete(txId)
      if (!commit) await tx.rollback()
    }).catch(reject)
  })
}

async function handle (msg: WorkerRequest): Promise<WorkerReply> {
  switch (msg.op) {
    case 'query': {
      const result = await runner(msg.tx).query(msg.text, msg.values)
      return { id: msg.id, ok: true, rows: result.rows }
    }
    case 'exec':
      await runner(msg.tx).exec(msg.text)
      return { id: msg.id, ok: true }
    case 'begin':
      return { id: msg.id, ok: true, tx: await beginTransaction() }
    case 'end':
      transactions.get(msg.tx)?.finish(msg.commit)
      return { id: msg.id, ok: true }
    case 'close':
      await db.close()
      return { id: msg.id, ok: true }
  }
}

port.on('message', (msg: WorkerRequest) => {
  handle(msg).then(reply => port.postMessage(reply), (err: { message?: string, code?: string, constraint?: string }) => {
    port.postMessage({ id: msg.id, ok: false, message: String(err?.message ?? err), code: err?.code, constraint: err?.constraint })
  })
})
port.postMessage({ id: 0, ok: true })
