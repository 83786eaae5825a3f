// `quire secret adopt`: makes the secret this configuration gives (QUIRE_SECRET,
// the secret file in DATA_DIR with the embedded server, or else a new secret stored in the
// database) the one the database was set up with: a deliberate change of secret.
import type { Config } from '../config.ts'
import { openStorage } from '../storage/open-storage.ts'
import { withDatabase } from '../embedded/attach-database.ts'
import { resolveServiceSecret, secretDataDir } from '../auth/service-secret.ts'

/** Adopts the configured secret and says where it comes from. */
export async function adoptSecret(config: Config, log: (msg: string) => void): Promise<string> {
  const dataDir = secretDataDir(config)
  await withDatabase(config, log, async () => {
    const { engine } = await openStorage(config, { log: () => {}, sync: false })
    try {
      await resolveServiceSecret(engine, { explicit: config.secret, dataDir, adopt: true, log })
    } finally {
      await engine.close()
    }
  })
  return config.secret
    ? 'QUIRE_SECRET'
    : dataDir
      ? `the secret file in ${dataDir}`
      : 'a new secret stored in the database'
}
