// What `quire serve` checks before its slow start-up work (starting the embedded PostgreSQL
// server, connecting, syncing the schema), so that a mistake is one line within a second: the
// port is free and may be used, the model files load, and a missing MODELS_DIR is a warning.
import { existsSync } from 'node:fs'
import { createServer } from 'node:net'
import type { Logger } from 'pino'
import type { Config } from '../config.ts'
import { loadModels } from '../models/load-models.ts'
import { USER_MODEL } from '../auth/users/user-model.ts'

/** Listens on HOST and PORT for a moment; a refusal (EADDRINUSE, EACCES...) is thrown as Node's listen error. */
function tryListen(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve()))
  })
}

/** Throws a StartupError (or a listen error, src/startup-error.ts says it in one line) when serve cannot start. */
export async function preflight(config: Config, log: Logger): Promise<void> {
  if (config.port !== 0) await tryListen(config.host, config.port)
  if (!existsSync(config.modelsDir))
    log.warn(
      `MODELS_DIR ${config.modelsDir} does not exist: serving only the built-in user model (set ` +
        `MODELS_DIR to your models' folder)`
    )
  loadModels(config.modelsDir, [USER_MODEL])
}
