// Concurrent creates share statements. A create joins the queue of its model and acting user;
// each turn of the event loop, the documents waiting there go to the database as one INSERT of
// many rows (at most MAX_BATCH documents, MAX_BATCH_BYTES of JSON; one round trip, one plan, one
// run of the statement triggers) while at most RUNNING_PER_QUEUE such statements of that queue
// are under way. A lone create is still one
// statement of one row, a tick later. A batch that fails (a duplicate key, a timeout) is retried
// one document at a time, so each create gets its own outcome, as if it had been sent alone;
// but when the database is out of reach every create of the batch fails at once (retrying each
// would only wait out one connection attempt per document).
// A batch runs in the scope of its first request, without its abort signal: one client leaving
// must not cancel the others' writes; the change capture records the queue's acting user.
import type { Doc } from '../engine.ts'
import type { Model } from '../../models/model-definition.ts'
import {
  currentRequestScope,
  runInRequestScope,
  withSignal,
  NEVER_ABORTED,
  type RequestScope
} from '../../runtime/request-scope.ts'
import { actingUserId } from '../../runtime/acting-user.ts'
import { isDatabaseUnavailable } from '../database-unavailable.ts'

/** Documents one statement inserts at most. */
const MAX_BATCH = 100
/** JSON one statement carries at most (a larger document goes alone). */
const MAX_BATCH_BYTES = 2 * 1024 * 1024
/** Statements of one queue under way at once. */
const RUNNING_PER_QUEUE = 2

export interface InsertStatements {
  /** Inserts one document and returns it as the create answers it (JSON text). */
  one: (model: Model, doc: Doc) => Promise<string>
  /** Inserts the documents of a JSON array (text) in one statement; returns each by _id. */
  many: (model: Model, docs: string) => Promise<Map<string, string>>
}

interface Waiting {
  doc: Doc
  json: string
  resolve: (stored: string) => void
  reject: (err: unknown) => void
}

interface Queue {
  model: Model
  scope: RequestScope | undefined
  waiting: Waiting[]
  running: number
  scheduled: boolean
}

/** The first waiting documents one statement takes: at most MAX_BATCH and MAX_BATCH_BYTES of JSON, at least one. */
function takeBatch(waiting: Waiting[]): Waiting[] {
  let count = 0
  let bytes = 0
  while (count < Math.min(waiting.length, MAX_BATCH)) {
    bytes += waiting[count].json.length
    if (count > 0 && bytes > MAX_BATCH_BYTES) break
    count++
  }
  return waiting.splice(0, count)
}

export function createInsertBatches(statements: InsertStatements): (model: Model, doc: Doc) => Promise<string> {
  const queues = new Map<Model, Map<string, Queue>>()

  const schedule = (key: string, queue: Queue): void => {
    if (queue.scheduled || queue.running >= RUNNING_PER_QUEUE || queue.waiting.length === 0) return
    queue.scheduled = true
    setImmediate(() => {
      void flush(key, queue)
    })
  }

  const insertAlone = async (queue: Queue, entry: Waiting): Promise<void> => {
    try {
      entry.resolve(await statements.one(queue.model, entry.doc))
    } catch (err) {
      entry.reject(err)
    }
  }

  const insertBatch = async (queue: Queue, batch: Waiting[]): Promise<void> => {
    if (batch.length === 1) return await insertAlone(queue, batch[0])
    let stored: Map<string, string>
    try {
      stored = await statements.many(queue.model, `[${batch.map(entry => entry.json).join(',')}]`)
    } catch (err) {
      if (isDatabaseUnavailable(err)) for (const entry of batch) entry.reject(err)
      else for (const entry of batch) await insertAlone(queue, entry)
      return
    }
    for (const entry of batch) entry.resolve(stored.get(entry.doc._id as string) as string)
  }

  const flush = async (key: string, queue: Queue): Promise<void> => {
    queue.scheduled = false
    const batch = takeBatch(queue.waiting)
    queue.running++
    const scope = queue.scope && withSignal(queue.scope, NEVER_ABORTED)
    try {
      await (scope ? runInRequestScope(scope, () => insertBatch(queue, batch)) : insertBatch(queue, batch))
    } finally {
      queue.running--
      if (queue.waiting.length > 0) schedule(key, queue)
      else if (queue.running === 0 && !queue.scheduled) forget(key, queue)
    }
  }

  const forget = (key: string, queue: Queue): void => {
    const ofModel = queues.get(queue.model)
    ofModel?.delete(key)
    if (ofModel?.size === 0) queues.delete(queue.model)
  }

  return async (model, doc) => {
    const key = actingUserId() ?? ''
    let ofModel = queues.get(model)
    if (!ofModel) queues.set(model, (ofModel = new Map()))
    let queue = ofModel.get(key)
    if (!queue) {
      queue = { model, scope: currentRequestScope(), waiting: [], running: 0, scheduled: false }
      ofModel.set(key, queue)
    }
    const json = JSON.stringify(doc)
    const done = new Promise<string>((resolve, reject) => queue.waiting.push({ doc, json, resolve, reject }))
    schedule(key, queue)
    return await done
  }
}
