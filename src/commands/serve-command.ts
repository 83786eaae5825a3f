// `quire serve`: builds the app and listens; on SIGTERM or SIGINT it stops accepting
// connections, lets in-flight requests finish (up to SHUTDOWN_TIMEOUT_MS), then closes the
// database (close-with-grace). An uncaught error closes the same way, then exits 1.
// With WORKERS > 1 this process becomes the cluster primary and each worker does the above
// (src/cluster/serve-cluster.ts). With DATABASE_URL unset, this process (the primary) starts or
// shares the embedded PostgreSQL server first and lets go of it last (src/embedded/). Workers that
// would not fit under PostgreSQL's max_connections stop the start (src/cluster/database-connections.ts).
import cluster from 'node:cluster'
import closeWithGrace from 'close-with-grace'
import { pino } from 'pino'
import type { Command } from 'commander'
import type { FastifyServerOptions } from 'fastify'
import { loadConfig, type Config } from '../config.ts'
import { isQuireWorker } from '../cluster/cluster-role.ts'
import { attachDatabase, type AttachedDatabase } from '../embedded/attach-database.ts'
import { checkDatabaseConnections } from '../cluster/database-connections.ts'
import { startBanner } from './start-banner.ts'
import { preflight } from './preflight.ts'
import { settingsHelp } from './settings-help.ts'

/** JSON lines for log collectors; pino-pretty (readable, in colour on a terminal) when asked or on a terminal. */
async function loggerOptions(config: Config): Promise<FastifyServerOptions['logger']> {
  const terminal = process.stdout.isTTY === true
  const pretty = config.logFormat === 'pretty' || (config.logFormat === 'auto' && terminal)
  if (!pretty) return { level: config.logLevel }
  const { default: pinoPretty } = await import('pino-pretty')
  // One line per entry: a request's line says method, URL, status and time in its message.
  return {
    level: config.logLevel,
    stream: pinoPretty({
      colorize: terminal,
      translateTime: 'SYS:HH:MM:ss.l',
      singleLine: true,
      ignore: 'pid,hostname,req,res,responseTime'
    })
  }
}

async function serve(): Promise<void> {
  const config = loadConfig()
  const { runPrimary, workerConfig } = await import('../cluster/serve-cluster.ts')
  if (isQuireWorker()) return await serveOne(workerConfig(config), NOTHING_ATTACHED)
  const options = (await loggerOptions(config)) as { level: string; stream?: NodeJS.WritableStream }
  const log = pino({ level: options.level }, options.stream ?? process.stdout)
  await preflight(config, log)
  const primary = config.workers > 1 && cluster.isPrimary
  // The app's modules load while the database starts (each takes a few hundred ms).
  const appModule = primary ? undefined : import('../../app.ts')
  appModule?.catch(() => {}) // awaited below; a failed start must not leave it unhandled
  const database = await attachDatabase(config, msg => log.info(msg))
  await checkDatabaseConnections(config).catch(async (err: unknown) => {
    await database.release()
    throw err
  })
  if (appModule === undefined) return runPrimary(config, log, database)
  await serveOne(config, database, appModule)
}

const NOTHING_ATTACHED: AttachedDatabase = { release: async () => {} }

async function serveOne(config: Config, database: AttachedDatabase, appModule = import('../../app.ts')): Promise<void> {
  const { buildApp } = await appModule
  const app = await buildApp({ config, logger: await loggerOptions(config) }).catch(async (err: unknown) => {
    await database.release()
    throw err
  })
  // A worker is stopped by the primary's SIGTERM; a terminal's Ctrl-C reaches the primary too, which passes it on.
  const worker = isQuireWorker()
  if (worker) process.on('SIGINT', () => {})
  closeWithGrace(
    {
      delay: config.shutdownTimeoutMs,
      skip: worker ? ['SIGINT'] : [],
      logger: { error: (message: unknown) => app.log.error(message) }
    },
    async ({ signal, err }) => {
      if (err) app.log.error({ err }, 'uncaught error: closing')
      else
        app.log.info(`${signal ?? 'exit'}: closing; in-flight requests have ${config.shutdownTimeoutMs} ms to finish`)
      await app.close()
      await database.release()
      app.log.info('closed')
    }
  )
  try {
    await app.listen({ port: config.port, host: config.host })
  } catch (err) {
    await app.close()
    await database.release()
    throw err
  }
  app.log.info(await startBanner(app, config))
}

export function addServeCommand(program: Command): void {
  program
    .command('serve')
    .description('start the HTTP API (configured by environment variables; see the README)')
    .addHelpText('after', settingsHelp())
    .action(serve)
}
