// JXP's other names of the session routes: GET|POST /logout (as /login/logout: the
// caller's token dies at once) and POST /login/refresh (as /refresh: the refresh token
// as Bearer, even after the token expired; rotated). Same replies and limits as theirs
// (/login/refresh has a request bucket of its own, of /refresh's size).
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { RefreshResponse } from '../schemas/auth.ts'
import { OkMessage } from '../schemas/common.ts'
import { presentedCredential } from '../src/auth/presented-credential.ts'
import { QuireError } from '../src/errors.ts'
import { providerOf } from '../src/jxp/provider.ts'

export default async function sessionAliasRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

  app.post(
    '/login/refresh',
    {
      config: { authenticate: false, rateLimit: app.endpointLimit('refresh') },
      schema: {
        summary: "JXP's name of POST /refresh: new token and refresh token for a refresh token (sent as Bearer)",
        response: { 200: RefreshResponse }
      }
    },
    async request => {
      const presented = presentedCredential(request.headers, undefined)
      if (presented?.kind !== 'bearer')
        throw new QuireError(
          'AUTH_FAILED',
          'Authentication failed',
          undefined,
          'Send the refresh token as Authorization: Bearer <refresh_token>'
        )
      return {
        status: 'ok' as const,
        ...(await app.credentials.sessions.refresh(presented.token)),
        provider: providerOf(request)
      }
    }
  )

  app.route({
    method: ['GET', 'POST'],
    url: '/logout',
    schema: { summary: "JXP's name of /login/logout: the token dies at once", response: { 200: OkMessage } },
    handler: async request => {
      if (!request.caller.userId) throw new QuireError('AUTH_REQUIRED', 'Log in to log out')
      await app.credentials.sessions.end(request.caller.userId)
      return { status: 'ok' as const, message: 'Logged out' }
    }
  })
}
