// `quire admin create`: opens the storage the configuration names (through open-storage, as the
// db plugin does; the embedded server of DATA_DIR, running or not), which brings the models'
// tables up to date, creates an admin, closes.
import type { Config } from '../config.ts'
import { openStorage } from '../storage/open-storage.ts'
import { withDatabase } from '../embedded/attach-database.ts'
import { QuireError } from '../errors.ts'
import { systemStore } from '../permissions/system-access.ts'
import { CREDENTIAL_MODEL } from '../auth/credentials/credential-model.ts'
import { createUser } from '../auth/users/user-records.ts'

/** Creates an admin user and returns its id; throws an Error with a message for the terminal. */
export async function createAdmin(config: Config, email: string, password: string): Promise<string> {
  return await withDatabase(
    config,
    () => {},
    async () => {
      const { engine } = await openStorage(config, { log: () => {}, internalModels: [CREDENTIAL_MODEL] })
      try {
        const user = await createUser(systemStore(engine), { email, password, admin: true }, config.bcryptRounds)
        return user._id as string
      } catch (err) {
        if (!(err instanceof QuireError)) throw err
        if (err.code === 'DUPLICATE_KEY') throw new Error(`A user with email ${email.toLowerCase()} exists already`)
        const details = Array.isArray(err.details)
          ? err.details.map((d: { field: string; message: string }) => `${d.field} ${d.message}`).join('; ')
          : ''
        throw new Error(details ? `${err.message}: ${details}` : err.message)
      } finally {
        await engine.close()
      }
    }
  )
}
