// `quire serve`: builds the app and listens; on SIGTERM or SIGINT it stops accepting
// connections, lets in-flight requests finish (up to SHUTDOWN_TIMEOUT_MS), then closes the
// database (close-with-grace). An uncaught error closes the same way, then exits 1.
// With WORKERS > 1 this process becomes the cluster primary and each worker does the above
// (src/cluster/serve-cluster.ts).
import cluster from 'node:cluster'
import closeWithGrace from 'close-with-grace'
import { pino } from 'pino'
import type { Command } from 'commander'
import type { FastifyServerOptions } from 'fastify'
import { loadConfig, type Config } from '../config.ts'
import { isQuireWorker } from '../cluster/cluster-role.ts'

/** JSON lines for log collectors; pino-pretty (readable, in colour on a terminal) when asked or on a terminal. */
async function loggerOptions (config: Config): Promise<FastifyServerOptions['logger']> {
  const terminal = process.stdout.isTTY === true
  const pretty = config.logFormat === 'pretty' || (config.logFormat === 'auto' && terminal)
  if (!pretty) return { level: config.logLevel }
  const { default: pinoPretty } = await import('pino-pretty')
  return { level: config.logLevel, stream: pinoPretty({ colorize: terminal, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }) }
}

async function serve (): Promise<void> {
  const config = loadConfig()
  const { checkWorkers, runPrimary, workerConfig } = await import('../cluster/serve-cluster.ts')
  checkWorkers(config)
  if (config.workers > 1 && cluster.isPrimary) {
    const options = await loggerOptions(config) as { level: string, stream?: NodeJS.WritableStream }
    return runPrimary(config, pino({ level: options.level }, options.stream ?? process.stdout))
  }
  await serveOne(isQuireWorker() ? workerConfig(config) : config)
}

async function serveOne (config: Config): Promise<void> {
  const { buildApp } = await import('../../app.ts')
  const app = await buildApp({ config, logger: await loggerOptions(config) })
  // A worker is stopped by the primary's SIGTERM; a terminal's Ctrl-C reaches the primary too, which passes it on.
  const worker = isQuireWorker()
  if (worker) process.on('SIGINT', () => {})
  closeWithGrace({ delay: config.shutdownTimeoutMs, skip: worker ? ['SIGINT'] : [], logger: { error: (message: unknown) => app.log.error(message) } }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'uncaught error: closing')
    else app.log.info(`${signal ?? 'exit'}: closing; in-flight requests have ${config.shutdownTimeoutMs} ms to finish`)
    await app.close()
    app.log.info('closed')
  })
  await app.listen({ port: config.port, host: config.host })
}

export function addServeCommand (program: Command): void {
  program.command('serve')
    .description('start the HTTP API (configured by environment variables; see the README)')
    .action(serve)
}
