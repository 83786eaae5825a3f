// The quick lane of the PostgreSQL client: a few connections of their own on which reads that
// usually take little time (list pages, counts, searches, aggregations) are pipelined like reads
// by id, each cut by the server at QUICK_STATEMENT_MS. A read cut there runs again as an expensive
// statement (a reserved connection, the expensive slots, what is left of its budget). Pipelining
// is what makes them cheap: a statement alone on its connection wakes an idle server process and
// the client for each round trip (on the bench's list pages about 300 us of CPU per request,
// half the throughput), while statements queued on busy connections share those wake-ups.
// No statement holds up the ones queued behind it for longer than the cut, and the lane's own
// slots (round robin between client addresses) keep one client from filling every queue.
import type postgres from 'postgres'
import { createExpensiveGate, type ExpensiveGate } from './expensive-gate.ts'

/** Statements queued on one quick connection at most (postgres.js's max_pipeline). */
const QUICK_PIPELINE_DEPTH = 8

/** SQLSTATE of a statement cut by statement_timeout (or cancelled: the lane cancels nothing). */
const CUT = '57014'

export interface QuickLane {
  /** Runs a statement on the lane: its result, or undefined when the server cut it at the lane's time limit. */
  tryQuickly: <T>(run: (connection: postgres.Sql) => Promise<T>) => Promise<{ result: T } | undefined>
  close: () => Promise<void>
}

/**
 * One connection, its queue's depth, and no query for the array types at connect: none of the
 * lane's reads returns an array column, and that query would be cut at the lane's limit.
 */
export interface QuickConnectionOptions {
  max: 1
  max_pipeline: number
  fetch_types: false
}

export interface QuickLaneOptions {
  /** The lane's connections, each opened by `connect` (with the lane's time limit) and these postgres.js options. */
  connections: number
  connect: (options: QuickConnectionOptions) => postgres.Sql
  /** The longest a statement waits for a place on the lane, and how many may wait (503 beyond either). */
  maxWaitMs: number
  maxWaiting: number
  /**
   * The lane's limit is the statement timeout itself: a cut is the statement's QUERY_TIMEOUT, not a reason to run it
   * again.
   */
  finalCut: boolean
}

/** The lane's slots: as many as its connections can queue; one client may hold all but one. */
export function openQuickLane(options: QuickLaneOptions): QuickLane {
  // One postgres.js client per connection, so that each statement joins the shortest queue
  // (postgres.js would take its busy connections in turn, however long their queues).
  const queues = Array.from({ length: options.connections }, () => ({
    sql: options.connect({ max: 1, max_pipeline: QUICK_PIPELINE_DEPTH, fetch_types: false }),
    queued: 0
  }))
  const slots = options.connections * QUICK_PIPELINE_DEPTH
  const gate: ExpensiveGate = createExpensiveGate({
    slots,
    perClient: Math.max(1, slots - 1),
    maxWaitMs: options.maxWaitMs,
    maxWaiting: options.maxWaiting
  })
  const shortest = (): (typeof queues)[number] =>
    queues.reduce((best, queue) => (queue.queued < best.queued ? queue : best))
  return {
    tryQuickly: async run => {
      try {
        return {
          result: await gate.run(async () => {
            const queue = shortest()
            queue.queued++
            try {
              return await run(queue.sql)
            } finally {
              queue.queued--
            }
          })
        }
      } catch (err) {
        if ((err as { code?: string }).code === CUT && !options.finalCut) return undefined
        throw err
      }
    },
    close: async () => {
      await Promise.all(queues.map(queue => queue.sql.end({ timeout: 5 })))
    }
  }
}
