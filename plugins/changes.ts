// Decorates the instance with `changes`, the process's change hub (src/changes), and
// prunes the change log to its retention window once a minute (every process tries;
// one at a time prunes). Open streams end, with a reason, before the server closes.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createChangeHub, type ChangeHub } from '../src/changes/change-hub.ts'

declare module 'fastify' {
  interface FastifyInstance {
    changes: ChangeHub
  }
}

const PRUNE_EVERY_MS = 60_000

async function changesPlugin(app: FastifyInstance): Promise<void> {
  const { config } = app
  const hub = createChangeHub({
    engine: app.db,
    registry: app.models,
    maxStreams: config.changesMaxStreams,
    maxStreamsPerClient: config.changesMaxStreamsPerClient,
    queueBytes: config.changesQueueBytes,
    stallMs: config.changesStallSeconds * 1000,
    log: msg => app.log.warn(msg)
  })
  app.decorate('changes', hub)
  const retention = { seconds: config.changesRetentionSeconds, entries: config.changesRetentionEvents }
  let pruning: Promise<void> = Promise.resolve()
  const prune = (): void => {
    pruning = app.db.changes.prune(retention).then(
      n => {
        if (n > 0) app.log.info(`change log: ${n} changes older than the retention window pruned`)
      },
      err => app.log.warn(`change log: pruning failed: ${(err as Error).message}`)
    )
  }
  const timer = setInterval(prune, PRUNE_EVERY_MS)
  timer.unref()
  app.addHook('onReady', async () => {
    prune()
  })
  app.addHook('preClose', async () => {
    clearInterval(timer)
    await hub.close()
    await pruning
  })
}

export default fp(changesPlugin, { name: 'changes', dependencies: ['db', 'auth', 'request-scope'] })
