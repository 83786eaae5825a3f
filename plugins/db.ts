// Decorates the instance with `db` (the storage engine chosen by DATABASE_URL)
// (and `system`, its door for the service's own records) and `models` (the loaded
// models), and syncs their storage on start.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { openStorage } from '../src/engines/open-storage.ts'
import { withCountCache } from '../src/engines/count-cache.ts'
import { observeEngine } from '../src/engines/observe-engine.ts'
import { systemStore } from '../src/permissions/system-access.ts'
import { watchWrites } from '../src/engines/write-watch.ts'
import { USER_MODEL } from '../src/auth/user-model.ts'
import { CREDENTIAL_MODEL } from '../src/auth/credential-model.ts'
import { countPeersInCluster } from '../src/cluster/count-channel.ts'
import { isQuireWorker } from '../src/cluster/cluster-role.ts'

/** What a write to users or credentials must set off (the auth plugin empties credential caches). */
export interface CredentialWrites { announce: () => Promise<void> }

/** What every write must set off: the response cache drops what was read from the models written (plugins/read-cache.ts). */
export interface CacheWrites { announce: (models: string[]) => void }

async function dbPlugin (app: FastifyInstance): Promise<void> {
  const { engine, models } = await openStorage(app.config, msg => app.log.info(msg))
  app.log.info(`storage: ${engine.kind}; models: ${models.all().map(m => m.name).join(', ')}`)
  const observed = app.engineObserver ? observeEngine(engine, app.engineObserver) : engine
  const credentialWrites: CredentialWrites = { announce: async () => {} }
  const counted = withCountCache(observed, app.config.countCacheMs, Date.now, isQuireWorker() ? countPeersInCluster() : undefined)
  const cacheWrites: CacheWrites = { announce: () => {} }
  const cached = app.config.cacheEnabled ? watchWrites(counted, 'every', async models => { cacheWrites.announce(models.map(m => m.name)) }) : counted
  const db = watchWrites(cached, [USER_MODEL.name, CREDENTIAL_MODEL.name], () => credentialWrites.announce())
  app.decorate('credentialWrites', credentialWrites)
  app.decorate('cacheWrites', cacheWrites)
  app.decorate('db', db)
  app.decorate('system', systemStore(db))
  app.decorate('models', models)
  app.addHook('onClose', async () => { await engine.close() })
}

export default fp(dbPlugin, { name: 'db', dependencies: ['config', 'metrics'] })
