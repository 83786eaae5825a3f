// Runs PGlite statements one at a time on a worker (pglite-connection.ts) and keeps it serving:
// simple statements before expensive ones, an open transaction's statements alone, a watchdog
// that replaces a worker stuck past its statement's budget, and recycling of a worker whose
// memory grew too big (WebAssembly memory never shrinks).
import { startConnection, type PgliteConnection, type RequestBody } from './pglite-connection.ts'
import type { WorkerReply } from './pglite-worker.ts'
import { SqlError, type StatementCost } from '../sql/sql-client.ts'
import { QuireError } from '../errors.ts'
import { MIN_BUDGET_SHARE } from './expensive-gate.ts'

export type OkReply = WorkerReply & { ok: true }

/** A transaction as the scheduler tracks it; `lost` once the worker holding it was replaced. */
export interface TxHandle { workerTx?: number, lost?: boolean }

export interface Statement {
  /** The request, without the worker's transaction id (the scheduler adds it). */
  body: RequestBody
  cost: StatementCost
  /** The watchdog's budget once the statement runs; none for the service's own work (start-up, CLI). */
  budgetMs?: number
  /** performance.now() by which a request's statement must be answered: waiting for its turn uses up its budget. */
  deadline?: number
  /** The request's signal: a statement not started yet is dropped when it aborts. */
  signal?: AbortSignal
  /** The transaction the statement runs in, or opens ('begin'). */
  tx?: TxHandle
}

export interface SchedulerOptions {
  dataDir: string
  /** The longest a request's statement waits for its turn before it is answered 503 (Infinity: no limit). */
  maxWaitMs: number
  /** An idle worker whose WebAssembly memory is larger than this is replaced by a fresh one. */
  recycleBytes: number
  log: (msg: string) => void
}

interface Job extends Statement {
  resolve: (reply: OkReply) => void
  reject: (err: unknown) => void
  waitTimer?: NodeJS.Timeout
  onAbort?: () => void
  /** How many simple statements ran ahead of it while it was the oldest one waiting. */
  overtaken?: number
}

/**
 * How many simple statements may run ahead of the oldest waiting one: then it runs. A steady
 * stream of simple statements (writes under load) would otherwise starve everything else, the
 * change feed's sequencer included.
 */
const MAX_OVERTAKES = 16
/** How long close() lets a running statement and PGlite's own shutdown take before it terminates the worker. */
const CLOSE_GRACE_MS = 5000
/** How long a replacement worker may take to start (reopening a data directory takes about 1 s). */
const RESTART_TIMEOUT_MS = 60_000

const unavailable = (message: string): QuireError => new QuireError('UNAVAILABLE', message)

/** The watchdog's budget of a statement about to run: its own, or what is left before its deadline; 0 when too little is left. */
function budgetLeft (job: Statement): number | undefined {
  if (job.deadline === undefined) return job.budgetMs
  const left = job.deadline - performance.now()
  if (job.budgetMs === undefined) return left
  return left < job.budgetMs * MIN_BUDGET_SHARE ? 0 : Math.min(job.budgetMs, left)
}
const delay = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms).unref())

export class PgliteScheduler {
  private connection?: PgliteConnection
  private readonly queue: Job[] = []
  private running?: { job: Job, timer?: NodeJS.Timeout, settled: Promise<void> }
  private openTx?: TxHandle
  private replacing?: Promise<void>
  private closing = false

  private constructor (private readonly options: SchedulerOptions) {}

  static async start (options: SchedulerOptions): Promise<PgliteScheduler> {
    const scheduler = new PgliteScheduler(options)
    scheduler.connection = await scheduler.connect()
    return scheduler
  }

  /** Runs one statement when its turn comes; rejects with a SqlError, QUERY_TIMEOUT's 57014 or a QuireError. */
  run (statement: Statement): Promise<OkReply> {
    return new Promise((resolve, reject) => {
      if (this.closing) return reject(unavailable('The database is closing'))
      if (statement.signal?.aborted) return reject(statement.signal.reason)
      const job: Job = { ...statement, resolve, reject }
      if (statement.body.op !== 'end') this.armDrops(job)
      this.queue.push(job)
      this.pump()
    })
  }

  /** Fails queued statements, lets a running one finish within a bound, closes PGlite, and terminates the worker. */
  async close (): Promise<void> {
    this.closing = true
    for (const job of this.queue.splice(0)) this.fail(job, unavailable('The database is closing'))
    const deadline = Date.now() + CLOSE_GRACE_MS
    const pending = [this.running?.settled, this.replacing].filter(p => p !== undefined)
    if (pending.length > 0) await Promise.race([delay(CLOSE_GRACE_MS), ...pending])
    const connection = this.connection
    this.connection = undefined
    if (!connection) return
    if (!this.running) await Promise.race([connection.send({ op: 'close' }).catch(() => {}), delay(Math.max(0, deadline - Date.now()))])
    await connection.terminate()
  }

  /** A request's statement leaves the queue when its client goes away or it waited too long. */
  private armDrops (job: Job): void {
    if (!job.signal) return
    job.onAbort = () => this.drop(job, job.signal!.reason)
    job.signal.addEventListener('abort', job.onAbort, { once: true })
    this.armWait(job)
  }

  /**
   * Starts (again) the wait of a queued request's statement: a worker's restart does not count
   * against it, unless the statement has a deadline (then it is answered by its deadline).
   */
  private armWait (job: Job): void {
    clearTimeout(job.waitTimer)
    const waitMs = Math.min(this.options.maxWaitMs, job.deadline === undefined ? Infinity : job.deadline - performance.now())
    // No timer without a limit: setTimeout would turn a delay past 2^31 - 1 ms into 1 ms.
    if (!Number.isFinite(waitMs)) return
    job.waitTimer = setTimeout(() => {
      if (!this.replacing || job.deadline !== undefined) this.drop(job, unavailable('The database is busy: retry shortly'))
    }, Math.max(0, waitMs))
  }

  private drop (job: Job, err: unknown): void {
    const at = this.queue.indexOf(job)
    if (at === -1) return
    this.queue.splice(at, 1)
    this.fail(job, err)
  }

  private disarm (job: Job): void {
    clearTimeout(job.waitTimer)
    if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort)
  }

  private fail (job: Job, err: unknown): void {
    this.disarm(job)
    job.reject(err)
  }

  private pump (): void {
    if (this.running || this.replacing || this.closing) return
    if (!this.connection) return this.replace('the previous worker could not start', false)
    const job = this.nextJob()
    if (job) this.dispatch(job, this.connection)
    else if (!this.openTx && this.grewTooBig(this.connection)) this.recycle(this.connection.memory)
  }

  /** An open transaction's statements only; otherwise simple statements first (at most MAX_OVERTAKES ahead of the oldest), then the oldest. */
  private nextJob (): Job | undefined {
    if (this.queue.length === 0) return undefined
    if (this.openTx) {
      const at = this.queue.findIndex(job => job.tx === this.openTx && job.body.op !== 'begin')
      return at === -1 ? undefined : this.queue.splice(at, 1)[0]
    }
    const oldest = this.queue[0]
    const simple = this.queue.findIndex(job => job.cost === 'simple' && !job.tx)
    if (simple <= 0 || (oldest.overtaken ?? 0) >= MAX_OVERTAKES) return this.queue.shift()
    oldest.overtaken = (oldest.overtaken ?? 0) + 1
    return this.queue.splice(simple, 1)[0]
  }

  private dispatch (job: Job, connection: PgliteConnection): void {
    this.disarm(job)
    if (job.tx?.lost) {
      if (job.body.op === 'end' && !job.body.commit) job.resolve({ id: 0, ok: true, memory: 0 })
      else job.reject(unavailable('The transaction was lost: the database worker was restarted'))
      return this.pump()
    }
    const budgetMs = budgetLeft(job)
    if (budgetMs !== undefined && budgetMs <= 0) {
      job.reject(unavailable('The database is busy: retry shortly'))
      return this.pump()
    }
    const body = job.tx?.workerTx === undefined ? job.body : { ...job.body, tx: job.tx.workerTx }
    const timer = budgetMs === undefined ? undefined : setTimeout(() => this.timeOut(job, budgetMs), budgetMs)
    const settled = connection.send(body).then(reply => this.settle(job, reply), err => this.settleDeath(job, err))
    this.running = { job, timer, settled }
  }

  private settle (job: Job, reply: WorkerReply): void {
    if (this.running?.job !== job) return
    clearTimeout(this.running.timer)
    this.running = undefined
    if (job.body.op === 'begin' && reply.ok) {
      job.tx!.workerTx = reply.tx
      this.openTx = job.tx
    }
    if (job.body.op === 'end') this.openTx = undefined
    if (reply.ok) job.resolve(reply)
    else job.reject(new SqlError(reply.message, reply.code, reply.constraint))
    if (!reply.ok && reply.broken) return this.replace(`a statement broke it (${reply.message})`, false)
    this.pump()
  }

  /** The worker died under the statement (not through the watchdog): fail it and start another. */
  private settleDeath (job: Job, err: unknown): void {
    if (this.running?.job !== job) return
    clearTimeout(this.running.timer)
    this.running = undefined
    job.reject(err)
    this.replace(`it died: ${(err as Error).message}`, false)
  }

  private timeOut (job: Job, budgetMs: number): void {
    if (this.running?.job !== job) return
    this.running = undefined
    job.reject(new SqlError('canceling statement due to statement timeout', '57014'))
    this.replace(`a statement ran past its ${Math.round(budgetMs)} ms budget`, false)
  }

  /** Replaces the worker: statements not started yet wait and run on the new one; an open transaction is lost. */
  private replace (reason: string, graceful: boolean): void {
    if (this.closing) return
    const old = this.connection
    this.connection = undefined
    if (this.openTx) this.openTx.lost = true
    this.openTx = undefined
    const started = Date.now()
    this.replacing = (async () => {
      if (old && graceful) await Promise.race([old.send({ op: 'close' }).catch(() => {}), delay(CLOSE_GRACE_MS)])
      await old?.terminate()
      const fresh = await this.connect(RESTART_TIMEOUT_MS)
      if (this.closing) return await fresh.terminate()
      this.connection = fresh
      this.options.log(`PGlite worker replaced because ${reason}; the new one took ${Date.now() - started} ms to start`)
    })().catch(err => {
      this.options.log(`PGlite worker could not be replaced (${reason}): ${(err as Error).message}`)
      for (const job of this.queue.splice(0)) this.fail(job, unavailable('The embedded database could not be restarted'))
    }).finally(() => {
      this.replacing = undefined
      for (const job of this.queue) if (job.waitTimer) this.armWait(job)
      this.pump()
    })
  }

  /** Grown past the threshold since it started (a worker that starts above it is not replaced in a loop). */
  private grewTooBig (connection: PgliteConnection): boolean {
    return this.options.recycleBytes > 0 && connection.memory > this.options.recycleBytes && connection.memory > connection.startMemory
  }

  private recycle (memory: number): void {
    this.replace(`its memory grew to ${Math.round(memory / 1048576)} MB while idle`, true)
  }

  private connect (startTimeoutMs?: number): Promise<PgliteConnection> {
    return startConnection(this.options.dataDir, err => {
      if (this.running) this.settleDeath(this.running.job, err)
      else if (!this.replacing && !this.closing) this.replace(`it died: ${err.message}`, false)
    }, startTimeoutMs)
  }
}
