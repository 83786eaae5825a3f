// Runs PGlite in a worker thread, so its queries never block the server's event
// loop. Answers the messages sent by pglite-connection.ts, one reply per request.
import { parentPort, workerData } from 'node:worker_threads'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { PGlite, type Transaction } from '@electric-sql/pglite'
import { readTemplate } from './pglite-template.ts'

export interface WorkerData {
  dataDir?: string
  /** PGlite's WebAssembly, compiled by the parent (pglite-connection.ts). */
  wasmModule: WebAssembly.Module
}

export type WorkerRequest =
  | { id: number, op: 'query', text: string, values: unknown[], tx?: number }
  | { id: number, op: 'exec', text: string, tx?: number }
  | { id: number, op: 'begin' }
  | { id: number, op: 'end', tx: number, commit: boolean }
  | { id: number, op: 'close' }

/** Every reply carries the size of PGlite's WebAssembly memory (it never shrinks). */
export type WorkerReply =
  | { id: number, ok: true, rows?: unknown[], tx?: number, memory: number }
  | { id: number, ok: false, message: string, code?: string, constraint?: string, memory: number, broken?: boolean }

/** The parts of PGlite's Emscripten module (its protected `mod`) this worker watches. */
interface PgliteModule { _PostgresMainLoopOnce: () => void, HEAPU8: Uint8Array }

/** PGlite's status for an ordinary PostgreSQL error (a longjmp back to the main loop), and for its own exit. */
const ORDINARY_EXITS = new Set([99, 100])

const port = parentPort!
const { dataDir, wasmModule } = workerData as WorkerData
/** A database without a data directory yet starts from the built template (no initdb) when there is one. */
const isNew = !dataDir || !existsSync(join(dataDir, 'PG_VERSION'))
const db = await PGlite.create({ dataDir, wasmModule, loadDataDir: isNew ? readTemplate() : undefined })
const mod = (db as unknown as { mod: PgliteModule }).mod
let crash: Error | undefined

/**
 * PGlite swallows any JavaScript exception thrown while PostgreSQL runs (RangeError "Maximum call
 * stack size exceeded" from a deep recursion, a WebAssembly trap) and answers with an empty result,
 * leaving the backend in an undefined state: the next statement may spin forever. Note them, so
 * that the statement fails and the worker is replaced.
 */
const mainLoopOnce = mod._PostgresMainLoopOnce
mod._PostgresMainLoopOnce = () => {
  try {
    mainLoopOnce()
  } catch (err) {
    if (!ORDINARY_EXITS.has((err as { status?: number }).status ?? -1)) crash ??= err as Error
    throw err
  }
}

/** Open transactions, each waiting for its 'end' message; `done` settles when it committed or rolled back. */
const transactions = new Map<number, { tx: Transaction, finish: (commit: boolean) => void, done: Promise<void> }>()
let nextTx = 1

function runner (tx?: number): PGlite | Transaction {
  if (tx === undefined) return db
  const open = transactions.get(tx)
  if (!open) throw new Error(`transaction ${tx} is not open`)
  return open.tx
}

function beginTransaction (): Promise<number> {
  return new Promise((resolve, reject) => {
    const txId = nextTx++
    const done = db.transaction(async tx => {
      const commit = await new Promise<boolean>(finish => {
        transactions.set(txId, { tx, finish, done })
        resolve(txId)
      })
      if (!commit) await tx.rollback()
    }).finally(() => transactions.delete(txId))
    done.catch(reject)
  })
}

async function endTransaction (txId: number, commit: boolean): Promise<void> {
  const open = transactions.get(txId)
  if (!open) return
  open.finish(commit)
  await open.done
}

async function handle (msg: WorkerRequest): Promise<unknown[] | number | undefined> {
  switch (msg.op) {
    case 'query': return (await runner(msg.tx).query(msg.text, msg.values)).rows
    case 'exec': await runner(msg.tx).exec(msg.text); return
    case 'begin': return await beginTransaction()
    case 'end': await endTransaction(msg.tx, msg.commit); return
    case 'close': await db.close()
  }
}

function replyTo (msg: WorkerRequest, result: unknown[] | number | undefined): WorkerReply {
  const memory = mod.HEAPU8.length
  if (crash) {
    const stack = crash instanceof RangeError
    return { id: msg.id, ok: false, broken: true, memory, code: stack ? '54001' : 'XX000', message: `PGlite failed inside PostgreSQL: ${crash.message}` }
  }
  return typeof result === 'number' ? { id: msg.id, ok: true, tx: result, memory } : { id: msg.id, ok: true, rows: result, memory }
}

port.on('message', (msg: WorkerRequest) => {
  handle(msg).then(result => port.postMessage(replyTo(msg, result)), (err: { message?: string, code?: string, constraint?: string }) => {
    const reply = replyTo(msg, undefined)
    port.postMessage(reply.ok ? { id: msg.id, ok: false, memory: reply.memory, message: String(err?.message ?? err), code: err?.code, constraint: err?.constraint } : reply)
  })
})
port.postMessage({ id: 0, ok: true, memory: mod.HEAPU8.length })
