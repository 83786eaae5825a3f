// POST /setup: creates the first admin while no user exists (409 otherwise); the other way to
// create one is `quire admin create` on the command line. POST /setup/data (JXP's seed route):
// documents for several models at once, by anyone while no user exists (as JXP), by admins after.
// Under JXP_COMPAT both answer in JXP's shapes (`status: "success"`, the admin's name and email).
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { SetupBody, SetupDataResponse, SetupResponse } from '../schemas/auth.ts'
import { createFirstAdmin } from '../src/auth/users/user-records.ts'
import { USER_MODEL } from '../src/auth/users/user-model.ts'
import { requireAdmin } from '../src/permissions/access.ts'
import { insertSeedData } from '../src/jxp/setup-data.ts'
import { reportDropped, withoutUnknownFields } from '../src/jxp/unknown-fields.ts'
import type { Doc } from '../src/storage/engine.ts'
import type { Model } from '../src/models/model-definition.ts'

/** The service itself, acting as an admin (seed data before any user exists). */
const SYSTEM = { admin: true, groups: [] }

export default async function setupRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const compat = app.config.jxpCompat

  app.post(
    '/setup',
    {
      config: { rateLimit: app.endpointLimit('setup') },
      schema: {
        summary: 'Create the first admin (only while no user exists)',
        body: SetupBody,
        response: { 200: SetupResponse }
      }
    },
    async request => {
      const { email, password } = request.body
      const name = request.body.name ?? (compat ? 'admin' : undefined)
      const user = (await createFirstAdmin(app.system, email, password, app.config.bcryptRounds, name)) as {
        _id: string
        email: string
        admin: boolean
        name?: string
      }
      if (compat) return { status: 'success' as const, name: user.name, email: user.email, _id: user._id }
      return { status: 'ok' as const, message: 'Admin created: log in with POST /login', data: user }
    }
  )

  app.post(
    '/setup/data',
    {
      config: { rateLimit: app.endpointLimit('setup') },
      schema: {
        summary:
          'Seed documents of several models: {"<model>": [documents]} (anyone while no user exists, then admins)',
        response: { 200: SetupDataResponse }
      }
    },
    async (request, reply) => {
      const noUsers = (await app.system.count(USER_MODEL, {})) === 0
      if (!noUsers) requireAdmin(request.caller, 'seed data once users exist')
      const ctx = { ...app.documentContext(request), ...(noUsers && { caller: SYSTEM }) }
      const clean = (model: Model, doc: Doc): Doc => {
        if (!compat) return doc
        const result = withoutUnknownFields(model, doc)
        reportDropped(model, result.dropped, reply, request.log)
        return result.body as Doc
      }
      const results = await insertSeedData(ctx, request.body, clean)
      return { status: compat ? ('success' as const) : ('ok' as const), results }
    }
  )
}
