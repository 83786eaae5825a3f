// One PGlite worker thread (pglite-worker.ts) on a data directory: starts it, sends it one
// request at a time and matches the reply, terminates it. The scheduler replaces broken ones.
import { Worker } from 'node:worker_threads'
import { readFile } from 'node:fs/promises'
import type { WorkerData, WorkerReply, WorkerRequest } from './pglite-worker.ts'

let compiled: Promise<WebAssembly.Module> | undefined

/**
 * PGlite's WebAssembly, compiled once per process and handed to every worker: each worker would
 * otherwise compile it again, about half of a replacement worker's start (0.55 -> 0.3 s measured).
 */
function compiledPglite (): Promise<WebAssembly.Module> {
  compiled ??= readFile(new URL(import.meta.resolve('@electric-sql/pglite/pglite.wasm'))).then(bytes => WebAssembly.compile(bytes))
  return compiled
}

/**
 * The worker's stack. PostgreSQL's recursion (parsing and evaluating a long expression such as
 * `1 + 1 + ...`) runs on it as WebAssembly frames, and Node's default of 4 MB ran out at 1,000 to
 * 1,500 terms. PostgreSQL's own stack check did not stop it first, so the worker broke and had to
 * be replaced. At 16 MB, 3,000 terms run; the pipeline check caps expressions at 1,000
 * (LIMITS.expressionTerms). The stack is reserved address space: only the pages used take memory.
 */
const WORKER_STACK_MB = 16

/**
 * The worker thread running pglite-worker: the compiled file beside this one (dist/), or, when
 * this file runs as TypeScript (tests, `npm run dev`), its source loaded through tsx's API, as
 * workers do not inherit tsx's loader.
 */
function startWorker (workerData: WorkerData): Worker {
  const options = { workerData, resourceLimits: { stackSizeMb: WORKER_STACK_MB } }
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./pglite-worker.js', import.meta.url), options)
  const bootstrap = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})` +
    `.then(tsx => tsx.tsImport(${JSON.stringify(new URL('./pglite-worker.ts', import.meta.url).href)}, ${JSON.stringify(import.meta.url)}))`
  return new Worker(bootstrap, { ...options, eval: true })
}

export type RequestBody = WorkerRequest extends infer R ? R extends { id: number } ? Omit<R, 'id'> : never : never

export interface PgliteConnection {
  /** Sends one request; settles with its reply, or rejects when the worker dies first. */
  send: (body: RequestBody) => Promise<WorkerReply>
  /** Stops the worker at once, even in the middle of a statement. */
  terminate: () => Promise<void>
  /** WebAssembly memory of the worker after its last reply, in bytes. */
  readonly memory: number
  /** Its WebAssembly memory once started. */
  readonly startMemory: number
}

/**
 * Starts a worker on `dataDir` and resolves once PGlite is ready (or fails after `startTimeoutMs`,
 * when given); `onExit` hears of a death not asked for.
 */
export async function startConnection (dataDir: string, onExit: (err: Error) => void, startTimeoutMs?: number): Promise<PgliteConnection> {
  const worker = startWorker({ dataDir, wasmModule: await compiledPglite() })
  const pending = new Map<number, { resolve: (reply: WorkerReply) => void, reject: (err: Error) => void }>()
  let memory = 0
  let nextId = 1
  let dead: Error | undefined
  let started = false

  const ready = new Promise<void>((resolve, reject) => {
    worker.once('message', (reply: WorkerReply) => { memory = reply.memory; resolve() })
    worker.once('error', reject)
    worker.once('exit', code => reject(new Error(`the PGlite worker exited with code ${code} while starting`)))
    if (startTimeoutMs !== undefined) setTimeout(() => reject(new Error(`the PGlite worker did not start within ${startTimeoutMs} ms`)), startTimeoutMs).unref()
  })
  worker.on('message', (reply: WorkerReply) => {
    memory = reply.memory
    pending.get(reply.id)?.resolve(reply)
    pending.delete(reply.id)
  })
  const die = (err: Error): void => {
    if (dead) return
    dead = err
    for (const waiting of pending.values()) waiting.reject(err)
    pending.clear()
    if (started) onExit(err)
  }
  worker.on('error', die)
  worker.on('exit', code => die(new Error(`the PGlite worker exited (code ${code})`)))
  await ready.catch(async err => {
    await worker.terminate()
    throw err
  })
  started = true
  const startMemory = memory

  return {
    send: body => {
      if (dead) return Promise.reject(dead)
      const id = nextId++
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject })
        worker.postMessage({ ...body, id })
      })
    },
    terminate: async () => {
      started = false
      die(new Error('the PGlite worker was stopped'))
      await worker.terminate()
    },
    get memory () { return memory },
    startMemory
  }
}
