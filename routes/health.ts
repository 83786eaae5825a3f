// GET /health (alive: answers even under pressure) and GET /ready (the database answers within
// the time a simple request may wait; 503 UNAVAILABLE otherwise, the cause logged). No
// authentication needed.
import type { FastifyInstance } from 'fastify'
import { setTimeout as sleep } from 'node:timers/promises'
import { QuireError, errorBody } from '../src/errors.ts'
import { ANSWER_UNDER_PRESSURE } from '../plugins/under-pressure.ts'

/** How long the readiness probe waits for the database. */
const READY_TIMEOUT_MS = 2000

/** Resolves when `probe` does, rejects when it fails or takes longer than `ms`. */
async function withinTime(probe: Promise<unknown>, ms: number): Promise<void> {
  const timer = new AbortController()
  const late = sleep(ms, undefined, { signal: timer.signal }).then(() => {
    throw new Error(`no answer within ${ms} ms`)
  })
  try {
    await Promise.race([probe, late])
  } finally {
    timer.abort()
    late.catch(() => {})
  }
}

export default async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/health',
    { config: ANSWER_UNDER_PRESSURE, schema: { summary: 'Liveness: the process answers' } },
    async () => ({ status: 'ok', engine: app.db.kind })
  )

  app.get(
    '/ready',
    { schema: { summary: 'Readiness: the database answers (503 otherwise)' } },
    async (request, reply) => {
      try {
        // The size estimate is one cheap round trip on every engine.
        await withinTime(app.db.estimateCount(app.models.get('user')), READY_TIMEOUT_MS)
        return { status: 'ok', engine: app.db.kind }
      } catch (err) {
        request.log.warn({ err }, 'not ready: the database did not answer')
        return reply.code(503).send(errorBody(new QuireError('UNAVAILABLE')))
      }
    }
  )
}
