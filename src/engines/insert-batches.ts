// Concurrent creates share statements. A create joins the queue of its model and acting user;
// each turn of the event loop, the documents waiting there go to the database as one INSERT of
// many rows (one round trip, one plan, one run of the statement triggers) while at most
// RUNNING_PER_QUEUE such statements of that queue are under way. A lone create is still one
// statement of one row, a tick later. A batch that fails (a duplicate key, a timeout) is retried
// one document at a time, so each create gets its own outcome, as if it had been sent alone.
// A batch runs in the scope of its first request, without its abort signal: one client leaving
// must not cancel the others' writes; the change capture records the queue's acting user.
import type { Doc } from './engine.ts'
import type { Model } from '../models/model-definition.ts'
import { currentRequestScope, runInRequestScope, type RequestScope } from './request-scope.ts'
import { actingUserId } from './acting-user.ts'

/** Documents one statement inserts at most. */
export const MAX_BATCH = 100
/** Statements of one queue under way at once. */
const RUNNING_PER_QUEUE = 2

export interface InsertStatements {
  /** Inserts one document and returns it as the create answers it (JSON text). */
  one: (model: Model, doc: Doc) => Promise<string>
  /** Inserts several in one statement; returns each by _id. */
  many: (model: Model, docs: Doc[]) => Promise<Map<string, string>>
}

interface Waiting { doc: Doc, resolve: (stored: string) => void, reject: (err: unknown) => void }

interface Queue {
  model: Model
  scope: RequestScope | undefined
  waiting: Waiting[]
  running: number
  scheduled: boolean
}

const NEVER = new AbortController().signal

export function createInsertBatches (statements: InsertStatements): (model: Model, doc: Doc) => Promise<string> {
  const queues = new Map<Model, Map<string, Queue>>()

  const schedule = (key: string, queue: Queue): void => {
    if (queue.scheduled || queue.running >= RUNNING_PER_QUEUE || queue.waiting.length === 0) return
    queue.scheduled = true
    setImmediate(() => { void flush(key, queue) })
  }

  const insertAlone = async (queue: Queue, entry: Waiting): Promise<void> => {
    try { entry.resolve(await statements.one(queue.model, entry.doc)) } catch (err) { entry.reject(err) }
  }

  const insertBatch = async (queue: Queue, batch: Waiting[]): Promise<void> => {
    if (batch.length === 1) return await insertAlone(queue, batch[0])
    let stored: Map<string, string>
    try {
      stored = await statements.many(queue.model, batch.map(entry => entry.doc))
    } catch {
      for (const entry of batch) await insertAlone(queue, entry)
      return
    }
    for (const entry of batch) entry.resolve(stored.get(entry.doc._id as string) as string)
  }

  const flush = async (key: string, queue: Queue): Promise<void> => {
    queue.scheduled = false
    const batch = queue.waiting.splice(0, MAX_BATCH)
    queue.running++
    const scope = queue.scope && { ...queue.scope, signal: NEVER }
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
    if (!ofModel) queues.set(model, ofModel = new Map())
    let queue = ofModel.get(key)
    if (!queue) {
      queue = { model, scope: currentRequestScope(), waiting: [], running: 0, scheduled: false }
      ofModel.set(key, queue)
    }
    const done = new Promise<string>((resolve, reject) => queue.waiting.push({ doc, resolve, reject }))
    schedule(key, queue)
    return await done
  }
}
