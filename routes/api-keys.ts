// API key management: POST /users/:id/apikey rotates the user's key (the new
// one is in the reply, the old one dies), DELETE /users/:id/apikey revokes it
// (the next login issues a new one). A user manages their own key, an admin
// anyone's; a caller that came with a login link manages none.
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { ApiKeyResponse, UserParams } from '../schemas/auth.ts'
import { OkMessage } from '../schemas/common.ts'
import { refuseLoginLinks, type Caller } from '../src/auth/caller.ts'
import { revokeApiKey } from '../src/auth/credentials/api-keys.ts'
import { findLiveUser } from '../src/auth/users/user-records.ts'
import { QuireError } from '../src/errors.ts'

/** 401 when anonymous, 403 for another user's key unless an admin, 403 for login-link callers. */
function authorize(caller: Caller, userId: string, action: string): void {
  if (!caller.userId) throw new QuireError('AUTH_REQUIRED', `Log in to ${action}`)
  if (caller.userId !== userId && !caller.admin)
    throw new QuireError('FORBIDDEN', `Only an admin can ${action} of another user`)
  refuseLoginLinks(caller, action)
}

export default async function apiKeyRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

  app.post(
    '/users/:id/apikey',
    {
      schema: {
        summary: "Rotate a user's API key (the old one dies)",
        params: UserParams,
        response: { 200: ApiKeyResponse }
      }
    },
    async request => {
      const { id } = request.params
      authorize(request.caller, id, 'rotate the API key')
      await findLiveUser(app.system, id)
      return {
        status: 'ok' as const,
        message: 'New API key issued: the previous one no longer works',
        apikey: await app.credentials.apiKeys.rotate(id)
      }
    }
  )

  app.delete(
    '/users/:id/apikey',
    { schema: { summary: "Revoke a user's API key", params: UserParams, response: { 200: OkMessage } } },
    async request => {
      const { id } = request.params
      authorize(request.caller, id, 'revoke the API key')
      await findLiveUser(app.system, id)
      await revokeApiKey(app.system, id)
      return { status: 'ok' as const, message: 'API key revoked: the next login issues a new one' }
    }
  )
}
