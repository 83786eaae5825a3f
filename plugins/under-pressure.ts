// Sheds load before the event loop stalls (@fastify/under-pressure): while it lags more than
// MAX_EVENT_LOOP_DELAY_MS, requests get 503 OVERLOADED with Retry-After, in the catalogue's
// envelope. Routes that must answer anyway (liveness, metrics) set `config.pressureHandler`.
import fp from 'fastify-plugin'
import underPressure from '@fastify/under-pressure'
import type { FastifyInstance } from 'fastify'
import { QuireError } from '../src/errors.ts'

/** How often the lag is sampled; the lag compared is the mean over one sample. */
const SAMPLE_INTERVAL_MS = 100
/** The samples taken until then still measure the start itself (module loading, schema compiling), not load. */
const START_GRACE_MS = 3 * SAMPLE_INTERVAL_MS
const RETRY_AFTER_SECONDS = 2

async function underPressurePlugin(app: FastifyInstance): Promise<void> {
  if (app.config.maxEventLoopDelayMs === 0) return
  let readyAt = Infinity
  app.addHook('onReady', async () => {
    readyAt = performance.now()
  })
  await app.register(underPressure, {
    maxEventLoopDelay: app.config.maxEventLoopDelayMs,
    sampleInterval: SAMPLE_INTERVAL_MS,
    // A rejection goes to the error handler (plugins/errors.ts), which answers in the envelope.
    pressureHandler: async (request, reply, type, value) => {
      if (performance.now() - readyAt < START_GRACE_MS) return
      request.log.warn({ type, value }, 'under pressure: request shed with 503')
      reply.header('retry-after', String(RETRY_AFTER_SECONDS))
      throw new QuireError('OVERLOADED')
    }
  })
}

/** Route config of a route that answers even under pressure. */
export const ANSWER_UNDER_PRESSURE = { pressureHandler: (): void => {} }

export default fp(underPressurePlugin, { name: 'under-pressure', dependencies: ['config'] })
