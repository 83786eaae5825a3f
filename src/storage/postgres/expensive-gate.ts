// Bounds how many expensive statements run at once, overall and per client address, so that
// simple ones (reads and writes by id, auth lookups) always find a connection. A statement that
// waits too long for a slot is answered 503; one whose client went away stops waiting. Its time
// limit counts from when it was asked, not from when it got a slot and a connection: one that
// waited gets what is left of STATEMENT_TIMEOUT_MS on its reserved connection (SET, then RESET),
// so that its answer comes within the limit, waiting included (withinBudget), even when the
// server is slow to end a statement it cut (answeredInTime).
import type postgres from 'postgres'
import { currentRequestScope } from '../../runtime/request-scope.ts'
import { QuireError } from '../../errors.ts'
import { SqlError } from '../sql/sql-client.ts'

export interface GateOptions {
  /** Expensive statements running at once, in all. */
  slots: number
  /** Expensive statements running at once for one client address. */
  perClient: number
  /** The longest a statement waits for a slot before it is answered 503 UNAVAILABLE (Infinity: no limit). */
  maxWaitMs: number
  /** Statements that may wait at once; more are answered 503 at once. */
  maxWaiting: number
}

export interface ExpensiveGate {
  /**
   * Runs `work` once a slot is free for the current request's client (or the service itself), waiting at most maxWaitMs
   * (and `waitMs` when given).
   */
  run: <T>(work: () => Promise<T>, waitMs?: number) => Promise<T>
}

interface Waiter {
  admit: () => void
}

/** The address the service's own work (start-up, CLI, no request) counts under. */
const SERVICE = ''

/**
 * A statement is not started with less than this share of its time budget left after waiting for
 * its turn: it would most likely be cut short (QUERY_TIMEOUT, as if the query were at fault).
 * It is answered 503 busy instead.
 */
const MIN_BUDGET_SHARE = 0.25

/** The answer to a statement that waited its whole time for a slot. */
function busyError(): QuireError {
  return new QuireError('UNAVAILABLE', 'The server is busy with other expensive queries: retry shortly')
}

class Slots implements ExpensiveGate {
  private readonly running = new Map<string, number>()
  /** When each client with running or waiting work was last let in: the next slot goes round robin. */
  private readonly lastAdmitted = new Map<string, number>()
  /**
   * Each client's waiters, first come first served; a client is a key only while it has one, so
   * the keys are in the order their oldest waiters came. A slot freed looks at each waiting client
   * once, not at each waiter: a thousand statements of one address waiting cost it no more than one.
   */
  private readonly queues = new Map<string, Waiter[]>()
  private waiting = 0
  private total = 0
  private admissions = 0

  constructor(private readonly options: GateOptions) {}

  async run<T>(work: () => Promise<T>, waitMs = this.options.maxWaitMs): Promise<T> {
    const scope = currentRequestScope()
    const client = scope?.client ?? SERVICE
    if (scope?.signal.aborted) throw scope.signal.reason
    // Waiters left while a slot is free are all held back by their own client's share.
    if (this.canRun(client)) this.take(client)
    else await this.wait(client, Math.min(waitMs, this.options.maxWaitMs), scope?.signal)
    try {
      return await work()
    } finally {
      this.release(client)
    }
  }

  private runningFor(client: string): number {
    return this.running.get(client) ?? 0
  }

  private canRun(client: string): boolean {
    return this.total < this.options.slots && this.runningFor(client) < this.options.perClient
  }

  private take(client: string): void {
    this.total++
    this.running.set(client, this.runningFor(client) + 1)
    this.lastAdmitted.set(client, ++this.admissions)
  }

  private release(client: string): void {
    this.total--
    const left = this.runningFor(client) - 1
    if (left > 0) this.running.set(client, left)
    else this.running.delete(client)
    if (left === 0 && !this.queues.has(client)) this.lastAdmitted.delete(client)
    this.admitNext()
  }

  /**
   * The next waiter: the oldest of the client let in least recently of those that may run (ties: the oldest waiter).
   */
  private admitNext(): void {
    const turn = (client: string): number => this.lastAdmitted.get(client) ?? 0
    let best: string | undefined
    for (const client of this.queues.keys())
      if (this.canRun(client) && (best === undefined || turn(client) < turn(best))) best = client
    if (best === undefined) return
    const waiter = this.leave(best, 0)
    this.take(best)
    waiter.admit()
  }

  /** Takes the waiter at `at` out of `client`'s queue. */
  private leave(client: string, at: number): Waiter {
    const queue = this.queues.get(client)!
    const waiter = at === 0 ? queue.shift()! : queue.splice(at, 1)[0]
    if (queue.length === 0) this.queues.delete(client)
    this.waiting--
    return waiter
  }

  private wait(client: string, waitMs: number, signal?: AbortSignal): Promise<void> {
    if (this.waiting >= this.options.maxWaiting) return Promise.reject(busyError())
    return new Promise((resolve, reject) => {
      const settle = (err?: unknown): void => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
        if (err === undefined) return resolve()
        const at = this.queues.get(client)?.indexOf(waiter) ?? -1
        if (at !== -1) this.leave(client, at)
        reject(err)
      }
      const onAbort = (): void => settle(signal!.reason)
      const waiter: Waiter = { admit: () => settle() }
      // No timer without a limit: setTimeout would turn a delay past 2^31 - 1 ms into 1 ms.
      const timer = Number.isFinite(waitMs) ? setTimeout(() => settle(busyError()), Math.max(0, waitMs)) : undefined
      signal?.addEventListener('abort', onAbort, { once: true })
      const queue = this.queues.get(client)
      if (queue) queue.push(waiter)
      else this.queues.set(client, [waiter])
      this.waiting++
    })
  }
}

export function createExpensiveGate(options: GateOptions): ExpensiveGate {
  return new Slots(options)
}

/** Waits shorter than this keep the session's own statement_timeout (no extra round trips). */
const SLACK_MS = 50

/**
 * Runs `work` on `connection` with a statement_timeout of what is left of `budgetMs` since
 * `askedAt` (performance.now()); answers 503 busy when less than MIN_BUDGET_SHARE of it is left.
 * `budgetMs` 0: no limit.
 */
export async function withinBudget<T>(
  connection: postgres.ReservedSql,
  budgetMs: number,
  askedAt: number,
  work: () => Promise<T>
): Promise<T> {
  const waited = performance.now() - askedAt
  if (budgetMs <= 0 || waited < SLACK_MS) return await work()
  const left = Math.floor(budgetMs - waited)
  if (left < budgetMs * MIN_BUDGET_SHARE) throw busyError()
  await connection.unsafe(`SET statement_timeout = ${left}`)
  try {
    return await work()
  } finally {
    // A connection that died takes its session along; the pool opens a new one with the default.
    await connection.unsafe('RESET statement_timeout').catch(() => {})
  }
}

/**
 * How long after its budget a statement's answer may come from the server. PostgreSQL ends a
 * statement at its statement_timeout only when it next checks for interrupts and once it has
 * freed what the statement built: the reliability suite's nested $lookup over 20,000 documents
 * took 0.3-1.7 s more on a slow machine.
 */
const LATE_ANSWER_MS = 250

/**
 * Settles like `running`, or rejects as the server's statement timeout does (57014) once
 * LATE_ANSWER_MS past `budgetMs` since `askedAt` (performance.now()). `running` keeps its slot
 * and connection until the server has ended it; its late result or error is dropped.
 */
export async function answeredInTime<T>(running: Promise<T>, budgetMs: number, askedAt: number): Promise<T> {
  if (budgetMs <= 0) return await running
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new SqlError('canceling statement due to statement timeout', '57014')),
      askedAt + budgetMs + LATE_ANSWER_MS - performance.now()
    )
  })
  try {
    return await Promise.race([running, late])
  } finally {
    clearTimeout(timer)
    running.catch(() => {})
  }
}
