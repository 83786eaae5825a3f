// POST /setup: creates the first admin while no user exists (409 afterwards).
// The other way to create one is `quire admin create` on the command line.
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { SetupBody, SetupResponse } from '../schemas/auth.ts'
import { createFirstAdmin } from '../src/auth/users/user-records.ts'

export default async function setupRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

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
      const user = await createFirstAdmin(app.system, email, password, app.config.bcryptRounds)
      return {
        status: 'ok' as const,
        message: 'Admin created: log in with POST /login',
        data: user as { _id: string; email: string; admin: boolean }
      }
    }
  )
}
