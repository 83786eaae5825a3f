// `quire serve`: builds the app and listens; on SIGTERM or SIGINT it stops accepting
// connections, lets in-flight requests finish (up to SHUTDOWN_TIMEOUT_MS), then closes the
// database (close-with-grace). An uncaught error closes the same way, then exits 1.
import closeWithGrace from 'close-with-grace'
import type { Command } from 'commander'
import type { FastifyServerOptions } from 'fastify'
import { loadConfig, type Config } from '../config.ts'

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
  const { buildApp } = await import('../../app.ts')
  const app = await buildApp({ config, logger: await loggerOptions(config) })
  closeWithGrace({ delay: config.shutdownTimeoutMs, logger: { error: (message: unknown) => app.log.error(message) } }, async ({ signal, err }) => {
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
