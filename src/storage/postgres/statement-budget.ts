// An expensive statement's time limit counts from when it was asked, not from when it got a slot
// and a connection: one that waited gets what is left of STATEMENT_TIMEOUT_MS on its reserved
// connection (SET, then RESET), so that its answer comes within the limit, waiting included.
import type postgres from 'postgres'
import { MIN_BUDGET_SHARE, busyError } from './expensive-gate.ts'

/** Waits shorter than this keep the session's own statement_timeout (no extra round trips). */
const SLACK_MS = 50

/**
 * Runs `work` on `connection` with a statement_timeout of what is left of `budgetMs` since
 * `askedAt` (performance.now()); answers 503 busy when less than MIN_BUDGET_SHARE of it is left. `budgetMs` 0: no
 * limit.
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
