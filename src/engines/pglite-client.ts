// SqlClient for embedded PGlite: statements go through the expensive-statement gate (and a
// client's cool-down after an overrun: overrun-cooldown.ts) to the scheduler
// (pglite-scheduler.ts), which runs them on a worker thread under a watchdog.
import type { SqlClient, Row, StatementCost } from '../sql/sql-client.ts'
import type { SqlValue } from '../sql/sql-params.ts'
import { mkdirSync } from 'node:fs'
import { PgliteScheduler, type Statement, type TxHandle } from './pglite-scheduler.ts'
import type { RequestBody } from './pglite-connection.ts'
import { createScratchDir, removeScratchDir } from './pglite-scratch-dir.ts'
import { createExpensiveGate, type GateOptions } from './expensive-gate.ts'
import { currentRequestScope } from './request-scope.ts'
import { createOverrunCooldown } from './overrun-cooldown.ts'
import { SqlError } from '../sql/sql-client.ts'

export interface PgliteOptions {
  /** A request's statement runs at most this long (0: no limit); the worker is replaced when it overruns. */
  statementTimeoutMs: number
  /** A tighter budget for a request's expensive statements (0: none): every other statement waits while one runs. */
  expensiveTimeoutMs: number
  /** An idle worker whose WebAssembly memory grew past this is replaced (0: never). */
  recycleBytes: number
  /** After a request's expensive statement overran its budget, its client address's expensive statements are refused this long (0: never). */
  overrunCooldownMs: number
  gate: Omit<GateOptions, 'maxWaitMs'>
  log: (msg: string) => void
}

const DEFAULTS: PgliteOptions = {
  statementTimeoutMs: 5000,
  expensiveTimeoutMs: 0,
  recycleBytes: 1024 * 1048576,
  overrunCooldownMs: 0,
  gate: { slots: 1, perClient: 1, maxWaiting: 1000 },
  log: () => {}
}

/** Opens PGlite with its data in `dataDir`, or in a scratch directory removed at close when it is undefined. */
export async function openPglite (dataDir: string | undefined, given: Partial<PgliteOptions> = {}): Promise<SqlClient> {
  const options = { ...DEFAULTS, ...given }
  if (dataDir) mkdirSync(dataDir, { recursive: true })
  const dir = dataDir ?? await createScratchDir()
  const maxWaitMs = options.statementTimeoutMs || Infinity
  const scheduler = await PgliteScheduler.start({ dataDir: dir, maxWaitMs, recycleBytes: options.recycleBytes, log: options.log })
  const gate = createExpensiveGate({ ...options.gate, maxWaitMs })
  const cooldown = createOverrunCooldown(options.overrunCooldownMs)

  /** Runs a request's expensive work through the gate, unless its client is cooling down after an overrun (the watchdog's 57014), which it starts. */
  async function expensive<T> (work: () => Promise<T>, waitMs?: number): Promise<T> {
    const client = currentRequestScope()?.client
    if (client !== undefined) cooldown.check(client)
    try {
      return await gate.run(work, waitMs)
    } catch (err) {
      if (client !== undefined && err instanceof SqlError && err.code === '57014') cooldown.overran(client)
      throw err
    }
  }

  const limits = { simple: [options.statementTimeoutMs], expensive: [options.statementTimeoutMs, options.expensiveTimeoutMs] }

  /**
   * When an expensive statement must be answered: STATEMENT_TIMEOUT_MS after it was asked, waiting
   * for the gate and the worker included, and, outside a transaction and until the response has
   * started, also STATEMENT_TIMEOUT_MS after the request arrived (its simple statements may have
   * waited behind another expensive one first). None for simple statements (a worker's restart
   * must not turn reads into 503s) nor for the service's own work.
   */
  function deadlineOf (cost: StatementCost, tx: TxHandle | undefined, askedAt: number): number | undefined {
    const scope = currentRequestScope()
    if (!scope || cost !== 'expensive' || options.statementTimeoutMs <= 0) return undefined
    const fromAsked = askedAt + options.statementTimeoutMs
    if (tx || scope.startedAt === undefined || scope.answering?.()) return fromAsked
    return Math.min(fromAsked, scope.startedAt + options.statementTimeoutMs)
  }

  /** A request's statement runs under the watchdog (a limit of 0 is none) and by its deadline; the service's own (start-up, CLI) do not. */
  function statement (body: RequestBody, cost: StatementCost, tx?: TxHandle, deadline = deadlineOf(cost, tx, performance.now())): Statement {
    const scope = currentRequestScope()
    const budget = Math.min(...limits[cost].filter(ms => ms > 0))
    const limited = scope && budget !== Infinity
    return { body, cost, tx, signal: scope?.signal, budgetMs: limited ? budget : undefined, deadline }
  }

  function clientFor (tx?: TxHandle): SqlClient {
    const send = async (body: RequestBody, cost: StatementCost = 'expensive') => {
      const deadline = deadlineOf(cost, tx, performance.now())
      const run = () => scheduler.run(statement(body, cost, tx, deadline))
      if (tx || cost === 'simple') return await run()
      return await expensive(run, deadline === undefined ? undefined : deadline - performance.now())
    }
    return {
      kind: 'pglite',
      query: async (text: string, values: SqlValue[] = [], queryOptions) => (await send({ op: 'query', text, values }, queryOptions?.cost)).rows as Row[],
      exec: async (text: string) => { await send({ op: 'exec', text }) },
      transaction: async (work) => {
        if (tx) return await work(clientFor(tx))
        return await expensive(() => runTransaction(work))
      },
      close: async () => {
        await scheduler.close()
        if (!dataDir) await removeScratchDir(dir)
      }
    }
  }

  async function runTransaction<T> (work: (tx: SqlClient) => Promise<T>): Promise<T> {
    const handle: TxHandle = {}
    await scheduler.run(statement({ op: 'begin' }, 'expensive', handle))
    try {
      const result = await work(clientFor(handle))
      await scheduler.run({ body: { op: 'end', tx: 0, commit: true }, cost: 'expensive', tx: handle })
      return result
    } catch (err) {
      await scheduler.run({ body: { op: 'end', tx: 0, commit: false }, cost: 'expensive', tx: handle })
      throw err
    }
  }
  return clientFor()
}
