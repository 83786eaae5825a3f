// SqlClient for a PostgreSQL server through postgres.js (the fastest driver measured here under
// concurrency), with a statement timeout on every query, a bounded share of the pool for
// expensive statements (time spent waiting for one counts against the statement timeout),
// a quick lane for reads that usually take little time (src/storage/postgres/quick-lane.ts),
// cancellation of a request's expensive statement when its client leaves,
// and a transaction that loses a deadlock run again.
import postgres from 'postgres'
import type { SqlClient, Row, StatementOptions } from '../sql/sql-client.ts'
import { SqlError } from '../sql/sql-client.ts'
import type { SqlValue } from '../../compiler/sql-text.ts'
import { answeredInTime, createExpensiveGate, withinBudget, type ExpensiveGate } from './expensive-gate.ts'
import { openQuickLane, type QuickConnectionOptions, type QuickLane } from './quick-lane.ts'
import { currentRequestScope } from '../../runtime/request-scope.ts'
import { postgresTarget } from './postgres-url.ts'

export interface PostgresOptions {
  poolSize: number
  /**
   * Expensive statements at once (0: see defaultExpensiveSlots), and for one client address (0: all but one of them).
   */
  expensiveSlots: number
  expensiveSlotsPerClient: number
  /** How the connections name themselves to the server (pg_stat_activity); `quire` unless given. */
  applicationName: string
  /** The quick lane's time limit (0: no quick lane); its connections are a fifth of the pool's. */
  quickStatementMs: number
  /** The database cores this process may count on for expensive statements (unset: no limit from cores). */
  databaseCores: number
}

/** Statements that may wait for a slot at once; more are answered 503 at once. */
const MAX_WAITING = 1000

function toSqlError(err: unknown): never {
  const e = err as { message?: string; code?: string; constraint_name?: string }
  if (e && typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code))
    throw new SqlError(String(e.message), e.code, e.constraint_name)
  throw err
}

/** Deadlock victims (40P01) and serialization failures (40001): the whole transaction can simply run again. */
const RETRYABLE = new Set(['40P01', '40001'])
const TRANSACTION_ATTEMPTS = 3

/**
 * Awaits a query, cancelling it when the request's client goes away. Only expensive statements are
 * cancelled: they run on a reserved connection, which is not given back before the server has
 * taken the cancel request. That request reaches the server through a new connection, and the
 * statement may have finished by then: the cancel would hit the next statement on the connection
 * (another request's, answered QUERY_TIMEOUT), whereas one that finds it idle is ignored.
 */
async function awaitCancellable<T>(query: postgres.PendingQuery<postgres.Row[]>, cancellable: boolean): Promise<T> {
  const signal = cancellable ? currentRequestScope()?.signal : undefined
  if (!signal) return (await query) as T
  if (signal.aborted) throw signal.reason
  let cancelling: Promise<void> | undefined
  const cancel = (): void => {
    cancelling = (query.cancel() as unknown as Promise<void> | null) ?? undefined
  }
  signal.addEventListener('abort', cancel, { once: true })
  try {
    return (await query) as T
  } catch (err) {
    throw signal.aborted ? signal.reason : err
  } finally {
    signal.removeEventListener('abort', cancel)
    await cancelling?.catch(() => {})
  }
}

/**
 * Runs an expensive statement on a connection of its own once the gate lets it: postgres.js would
 * otherwise pipeline other statements on the connection behind it, simple ones included. The time
 * it waited counts against its statement timeout (`budgetMs`), and its answer comes in time even
 * when the server is slow to end it (answeredInTime).
 */
async function onReservedConnection<T>(
  pool: Pool,
  work: (connection: postgres.Sql) => Promise<T>,
  askedAt = performance.now()
): Promise<T> {
  const running = pool.gate.run(async () => {
    const reserved = await pool.reserve()
    try {
      return await withinBudget(reserved, pool.budgetMs, askedAt, () => work(reserved))
    } finally {
      reserved.release()
    }
  })
  return await answeredInTime(running, pool.budgetMs, askedAt)
}

/**
 * A statement planned for its values is sent unnamed, parsed, bound and run in one round trip.
 * postgres.js would first ask the server for its parameters' types (a second round trip, +120 us
 * of server CPU per request); the values are strings, numbers, booleans or null, which it sends
 * as text whatever their inferred type (patches/postgres+3.4.9.patch adds `describeFirst`).
 */
function statementOptions(options: StatementOptions | undefined): postgres.UnsafeQueryOptions {
  if (options?.planForValues !== true) return { prepare: true }
  return { prepare: false, describeFirst: false } as postgres.UnsafeQueryOptions
}

/**
 * The pool's expensive-statement gate, the statement budget, how to take a connection of its own, and the quick lane.
 */
interface Pool {
  gate: ExpensiveGate
  budgetMs: number
  reserve: () => Promise<postgres.ReservedSql>
  quick?: QuickLane
}

/** `sql` is the pool, or a transaction (`pool` undefined): a transaction holds its connection and slot. */
function wrap(sql: postgres.Sql | postgres.TransactionSql, pool: Pool | undefined): SqlClient {
  /**
   * Expensive work outside a transaction waits for a slot and a connection of its own (where it
   * may be cancelled), after a first try on the quick lane when it is a quick-first read; it
   * keeps the time it was asked.
   */
  const run = async <T>(
    options: StatementOptions | undefined,
    work: (connection: postgres.Sql | postgres.TransactionSql, cancellable: boolean) => Promise<T>
  ): Promise<T> => {
    const expensive = options?.cost !== 'simple'
    if (pool === undefined || !expensive) return await work(sql, expensive)
    const askedAt = performance.now()
    const quickly =
      options?.quickFirst === true && pool.quick !== undefined
        ? await pool.quick.tryQuickly(connection => work(connection, false))
        : undefined
    return quickly !== undefined
      ? quickly.result
      : await onReservedConnection(pool, connection => work(connection, true), askedAt)
  }
  return {
    kind: 'postgres',
    query: async (text: string, values: SqlValue[] = [], options) => {
      try {
        return await run(options, (connection, cancellable) =>
          awaitCancellable<Row[]>(
            connection.unsafe(text, values as postgres.ParameterOrJSON<never>[], statementOptions(options)),
            cancellable
          )
        )
      } catch (err) {
        return toSqlError(err)
      }
    },
    exec: async (text: string) => {
      try {
        await run(undefined, (connection, cancellable) => awaitCancellable(connection.unsafe(text), cancellable))
      } catch (err) {
        toSqlError(err)
      }
    },
    transaction: async (work, options) => {
      if (!('begin' in sql)) return await work(wrap(sql, undefined))
      const transact = (): Promise<unknown> => sql.begin(tx => work(wrap(tx, undefined)))
      for (let attempt = 1; ; attempt++) {
        try {
          return (await (options?.cost === 'simple' || pool === undefined
            ? transact()
            : pool.gate.run(transact))) as Awaited<ReturnType<typeof work>>
        } catch (err) {
          if (attempt < TRANSACTION_ATTEMPTS && RETRYABLE.has((err as { code?: string }).code ?? '')) continue
          return toSqlError(err)
        }
      }
    },
    close: async () => {
      if ('end' in sql) await sql.end({ timeout: 5 })
    },
    ...('listen' in sql && {
      listen: async (channel: string, onPayload: (payload: string) => void, onListen: () => void) =>
        (await sql.listen(channel, onPayload, onListen)).unlisten,
      // postgres.js keeps its listening connection (a pool of one) as `listen.sql`.
      queryListener: async (text: string) => {
        const listener = (sql.listen as unknown as { sql?: postgres.Sql }).sql
        if (listener === undefined) throw new Error('nothing listens on this client')
        try {
          return await listener.unsafe<Row[]>(text)
        } catch (err) {
          return toSqlError(err)
        }
      }
    })
  }
}

/** A fifth of the pool (none below 5 connections) serves the quick lane, unless it is off. */
function quickLaneSize(poolSize: number, quickStatementMs: number): number {
  return quickStatementMs > 0 ? Math.floor(poolSize / 5) : 0
}

/**
 * Expensive statements at once when EXPENSIVE_QUERY_SLOTS is unset: half the pool, leaving the main connections
 * at least one for simple statements, and at most the database cores this process may count on. Each expensive
 * statement can keep a core busy for the whole statement timeout: with more of them than that, reads by id wait
 * for a core, not a connection (the reliability suite's expensive scenario on 2 cores: reads' p99 55-106 ms with
 * 5 at once, 25-67 ms with 2, 16-21 ms with 1).
 */
export function defaultExpensiveSlots(poolSize: number, mainSize: number, databaseCores = Infinity): number {
  return Math.max(1, Math.min(Math.floor(poolSize / 2), mainSize - 1, databaseCores))
}

export function openPostgres(url: string, statementTimeoutMs: number, given: Partial<PostgresOptions> = {}): SqlClient {
  const poolSize = Math.max(1, given.poolSize ?? 10)
  const quickMs = given.quickStatementMs ?? 0
  const quickSize = quickLaneSize(poolSize, quickMs)
  const mainSize = poolSize - quickSize
  const slots = given.expensiveSlots || defaultExpensiveSlots(poolSize, mainSize, given.databaseCores)
  const perClient = given.expensiveSlotsPerClient || Math.max(1, slots - 1)
  const target = postgresTarget(url)
  const connect = (timeoutMs: number, options: { max: number } | QuickConnectionOptions): postgres.Sql =>
    postgres(target.url, {
      ...options,
      ...(target.host !== undefined && { host: target.host }),
      onnotice: () => {},
      // A server out of reach is reported (503) within the statement timeout, not after postgres.js's 30 s.
      connect_timeout: statementTimeoutMs > 0 ? Math.ceil(statementTimeoutMs / 1000) : 30,
      // Reconnect attempts wait at most 0.5 s (postgres.js grows the wait to 20 s): queries meanwhile
      // wait for the attempt, so a long wait is a hang while the server is down and after it is back.
      backoff: (retries: number) => Math.min(0.05 * retries, 0.5),
      // JIT compiles these short jsonb statements for tens of ms each (measured ~13x their run time).
      connection: { statement_timeout: timeoutMs, application_name: given.applicationName ?? 'quire', jit: 'off' }
    })
  const sql = connect(statementTimeoutMs, { max: mainSize })
  const finalCut = statementTimeoutMs > 0 && quickMs >= statementTimeoutMs
  const quick =
    quickSize === 0
      ? undefined
      : openQuickLane({
          connections: quickSize,
          connect: options => connect(finalCut ? statementTimeoutMs : quickMs, options),
          maxWaitMs: statementTimeoutMs || Infinity,
          maxWaiting: MAX_WAITING,
          finalCut
        })
  const gate = createExpensiveGate({
    slots,
    perClient,
    maxWaitMs: statementTimeoutMs || Infinity,
    maxWaiting: MAX_WAITING
  })
  // postgres.js refuses queries once ended, but would open a new connection to reserve one: after
  // close, a late expensive statement (background work still running) is refused the same way.
  let closed = false
  const reserve = async (): Promise<postgres.ReservedSql> => {
    if (closed) throw Object.assign(new Error('The database client is closed'), { code: 'CONNECTION_ENDED' })
    return await sql.reserve()
  }
  const client = wrap(sql, { gate, budgetMs: statementTimeoutMs, reserve, quick })
  return {
    ...client,
    close: async () => {
      closed = true
      await Promise.all([client.close(), quick?.close()])
    }
  }
}
