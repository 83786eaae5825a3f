// SqlClient for embedded PGlite: the database lives in a worker thread
// (pglite-worker.ts); this side forwards statements and matches the replies.
import { Worker } from 'node:worker_threads'
import { mkdirSync } from 'node:fs'
import type { SqlClient, Row } from '../sql/sql-client.ts'
import { SqlError } from '../sql/sql-client.ts'
import type { SqlValue } from '../sql/sql-params.ts'
import type { WorkerReply, WorkerRequest } from './pglite-worker.ts'

/**
 * The worker thread running pglite-worker: the compiled file beside this one (dist/), or, when
 * this file runs as TypeScript (tests, `npm run dev`), its source loaded through tsx's API, as
 * workers do not inherit tsx's loader.
 */
function startWorker (workerData: { dataDir?: string }): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./pglite-worker.js', import.meta.url), { workerData })
  const bootstrap = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})` +
    `.then(tsx => tsx.tsImport(${JSON.stringify(new URL('./pglite-worker.ts', import.meta.url).href)}, ${JSON.stringify(import.meta.url)}))`
  return new Worker(bootstrap, { eval: true, workerData })
}

type Pending = { resolve: (reply: WorkerReply & { ok: true }) => void, reject: (err: Error) => void }
type RequestBody = WorkerRequest extends infer R ? R extends { id: number } ? Omit<R, 'id'> : never : never

/** Opens PGlite with its data in `dataDir`, or in memory when it is undefined. */
export async function openPglite (dataDir: string | undefined): Promise<SqlClient> {
  if (dataDir) mkdirSync(dataDir, { recursive: true })
  const worker = startWorker({ dataDir })
  const pending = new Map<number, Pending>()
  let nextId = 1
  let failure: Error | undefined

  const ready = new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve())
    worker.once('error', reject)
  })
  worker.on('message', (reply: WorkerReply) => {
    const waiting = pending.get(reply.id)
    if (!waiting) return
    pending.delete(reply.id)
    if (reply.ok) waiting.resolve(reply)
    else waiting.reject(new SqlError(reply.message, reply.code, reply.constraint))
  })
  worker.on('error', err => {
    failure = err
    for (const waiting of pending.values()) waiting.reject(err)
    pending.clear()
  })
  await ready

  function send (body: RequestBody): Promise<WorkerReply & { ok: true }> {
    if (failure) return Promise.reject(failure)
    const id = nextId++
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject })
      worker.postMessage({ ...body, id })
    })
  }

  function clientFor (tx?: number): SqlClient {
    return {
      kind: 'pglite',
      query: async (text: string, values: SqlValue[] = []) => (await send({ op: 'query', text, values, tx })).rows as Row[],
      exec: async (text: string) => { await send({ op: 'exec', text, tx }) },
      transaction: async (work) => {
        if (tx !== undefined) return await work(clientFor(tx))
        const { tx: txId } = await send({ op: 'begin' })
        try {
          const result = await work(clientFor(txId))
          await send({ op: 'end', tx: txId!, commit: true })
          return result
        } catch (err) {
          await send({ op: 'end', tx: txId!, commit: false })
          throw err
        }
      },
      close: async () => {
        await send({ op: 'close' })
        await worker.terminate()
      }
    }
  }
  return clientFor()
}
