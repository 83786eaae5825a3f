// The first admin. On the default HOST=0.0.0.0, `POST /setup` belongs to whoever reaches it
// first while no user exists: with QUIRE_ADMIN_EMAIL and QUIRE_ADMIN_PASSWORD the admin is
// created at start instead (by one process of several; the others find it there), and a
// start that leaves /setup open says so loudly, at warn level.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createFirstAdmin } from '../src/auth/users/user-records.ts'
import { USER_MODEL } from '../src/auth/users/user-model.ts'
import { QuireError } from '../src/errors.ts'
import { StartupError } from '../src/startup-error.ts'

export const SETUP_OPEN_WARNING =
  'POST /setup is open: no user exists, and whoever calls it first becomes the admin. ' +
  'Create the first admin now (POST /setup, or `quire admin create`), or start with QUIRE_ADMIN_EMAIL and ' +
  'QUIRE_ADMIN_PASSWORD set'

/** The fields a refused admin record names (`email must match format "email"`). */
function detailsOf(err: QuireError): string {
  const details = Array.isArray(err.details) ? (err.details as Array<{ field: string; message: string }>) : []
  return details.length ? `: ${details.map(d => `${d.field} ${d.message}`).join('; ')}` : ''
}

async function firstAdminPlugin(app: FastifyInstance): Promise<void> {
  app.addHook('onReady', async () => {
    const wanted = app.config.firstAdmin
    if (wanted !== undefined) {
      try {
        await createFirstAdmin(app.system, wanted.email, wanted.password, app.config.bcryptRounds)
        app.log.info(`created the first admin, ${wanted.email.toLowerCase()} (QUIRE_ADMIN_EMAIL)`)
      } catch (err) {
        // CONFLICT: set up already (by an earlier start, or by another worker just now).
        if (!(err instanceof QuireError)) throw err
        if (err.code !== 'CONFLICT')
          throw new StartupError(`QUIRE_ADMIN_EMAIL, QUIRE_ADMIN_PASSWORD: ${err.message}${detailsOf(err)}`)
      }
    }
    if ((await app.system.count(USER_MODEL, {})) === 0) app.log.warn(SETUP_OPEN_WARNING)
  })
}

export default fp(firstAdminPlugin, { name: 'first-admin', dependencies: ['db', 'auth'] })
