// Decorates the instance with `db` (the storage engine chosen by DATABASE_URL, decorated by
// src/storage/open-storage.ts), `system` (its door for the service's own records) and `models`
// (the loaded models), and syncs their storage on start.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { openStorage } from '../src/storage/open-storage.ts'
import { systemStore } from '../src/permissions/system-access.ts'
import { USER_MODEL } from '../src/auth/users/user-model.ts'
import { CREDENTIAL_MODEL } from '../src/auth/credentials/credential-model.ts'
import { countPeersInCluster } from '../src/cluster/count-channel.ts'
import { isQuireWorker } from '../src/cluster/cluster-role.ts'

/** What a write to users or credentials must set off (the auth plugin empties credential caches). */
export interface CredentialWrites {
  announce: () => Promise<void>
}

/**
 * What every write must set off before it is answered: the response cache drops what was read
 * from the models written, and waits until the write is announced to the other processes
 * (plugins/read-cache.ts).
 */
export interface CacheWrites {
  announce: (models: string[]) => Promise<void>
}

async function dbPlugin(app: FastifyInstance): Promise<void> {
  const credentialWrites: CredentialWrites = { announce: async () => {} }
  const cacheWrites: CacheWrites = { announce: async () => {} }
  const { engine: db, models } = await openStorage(app.config, {
    log: msg => app.log.info(msg),
    observer: app.engineObserver,
    countPeers: isQuireWorker() ? countPeersInCluster() : undefined,
    watches: [
      ...(app.config.cacheEnabled
        ? [
            {
              models: 'every' as const,
              onWrite: async (written: Array<{ name: string }>) => {
                await cacheWrites.announce(written.map(m => m.name))
              }
            }
          ]
        : []),
      { models: [USER_MODEL.name, CREDENTIAL_MODEL.name], onWrite: () => credentialWrites.announce() }
    ]
  })
  app.log.info(
    `storage: ${db.kind}; models: ${models
      .all()
      .map(m => m.name)
      .join(', ')}`
  )
  app.decorate('credentialWrites', credentialWrites)
  app.decorate('cacheWrites', cacheWrites)
  app.decorate('db', db)
  app.decorate('system', systemStore(db))
  app.decorate('models', models)
  app.addHook('onClose', async () => {
    await db.close()
  })
}

export default fp(dbPlugin, { name: 'db', dependencies: ['config', 'metrics'] })
