// The line `quire serve` logs once it listens, so that an operator sees at a glance what runs:
// the version, the address, the storage (credentials left out), the models, and whether
// POST /setup is still open (no user yet: the first admin is created there).
import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.ts'
import { packageVersion } from '../package-root.ts'
import { serverAddresses } from '../storage/probe-database.ts'
import { postgresTarget } from '../storage/postgres/postgres-url.ts'
import { USER_MODEL } from '../auth/users/user-model.ts'

/** The database DATABASE_URL names, without user or password: `PostgreSQL at db:5432/quire`. */
function describeStorage(config: Config): string {
  if (config.embedded) return `embedded PostgreSQL in ${config.dataDir}`
  const url = config.databaseUrl
  const database = /^[^:]+:\/\/[^/?#]*\/([^?#]*)/.exec(url)?.[1] ?? ''
  if (url.startsWith('mongodb'))
    return `MongoDB at ${serverAddresses(url, 27017)
      .map(a => `${a.host}:${a.port}`)
      .join(',')}/${database}`
  const socket = postgresTarget(url).host
  const where =
    socket ??
    serverAddresses(url, 5432)
      .map(a => `${a.host}:${a.port}`)
      .join(',')
  return `PostgreSQL at ${where}/${decodeURIComponent(database)}`
}

/**
 * `Quire 0.2.0 on http://127.0.0.1:3000 (embedded PostgreSQL in /srv/data); models: link, test (+ user); /setup open:
 * ...`.
 */
export async function startBanner(app: FastifyInstance, config: Config): Promise<string> {
  const own = app.models
    .all()
    .filter(model => model.builtIn !== true)
    .map(model => model.name)
  const models =
    own.length > 0 ? `models: ${own.join(', ')} (+ user)` : `no models in ${config.modelsDir} (only the built-in user)`
  const setup =
    (await app.system.count(USER_MODEL, {})) === 0
      ? '/setup open: no user yet, create the first admin with POST /setup or `quire admin create`'
      : '/setup closed (users exist)'
  const address = app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : config.port
  return (
    `Quire ${packageVersion()} on ` +
    `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port} ` +
    `(${describeStorage(config)}); ${models}; ${setup}`
  )
}
