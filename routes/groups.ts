// JXP's group routes, /groups/{user_id}: GET lists a user's groups (an admin, or the
// user), PUT adds `group` (a name or a list), POST replaces them with `group`, DELETE
// ?group= removes one (admins). The groups live in the user record (src/auth/users/user-groups.ts);
// /users/{id}/groups is the same thing in Quire's own form.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { requireAdmin } from '../src/permissions/access.ts'
import { changeGroups, checkGroupName, listGroups, requireGroupAdmin } from '../src/auth/users/user-groups.ts'
import { QuireError } from '../src/errors.ts'
import type { Caller } from '../src/auth/caller.ts'

const GroupName = Type.String({ minLength: 1, maxLength: 64 })
const Params = Type.Object({ user_id: Type.String({ maxLength: 64 }) })
const Body = Type.Object({ group: Type.Union([GroupName, Type.Array(GroupName, { minItems: 1, maxItems: 100 })]) })
const DeleteQuery = Type.Object({ group: Type.Optional(Type.String({ maxLength: 64 })) })
const Reply = Type.Object({ status: Type.Literal('ok'), user_id: Type.String(), groups: Type.Array(Type.String()) })

/** The group names of a body, checked, without repeats. */
function namesOf(group: string | string[]): string[] {
  const names = [...new Set(Array.isArray(group) ? group : [group])]
  for (const name of names) checkGroupName(name)
  return names
}

export default async function jxpGroupRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const reply = (userId: string, groups: string[]) => ({ status: 'ok' as const, user_id: userId, groups })
  const change = async (caller: Caller, userId: string, apply: (groups: string[]) => string[]) =>
    reply(userId, await changeGroups(app.system, caller, userId, apply))
  // Before the body is validated: a caller who is not an admin learns nothing from it.
  const preValidation = async (request: FastifyRequest): Promise<void> => {
    requireGroupAdmin(request.caller)
  }

  app.get(
    '/groups/:user_id',
    { schema: { summary: "A user's groups (the user, or admins)", params: Params, response: { 200: Reply } } },
    async request => {
      const userId = request.params.user_id
      if (request.caller.userId !== userId) requireAdmin(request.caller, 'see the groups of other users')
      return reply(userId, await listGroups(app.system, userId))
    }
  )

  app.put(
    '/groups/:user_id',
    {
      preValidation,
      schema: { summary: 'Add groups to a user (admins)', params: Params, body: Body, response: { 200: Reply } }
    },
    async request => {
      const added = namesOf(request.body.group)
      return await change(request.caller, request.params.user_id, groups => [
        ...groups,
        ...added.filter(g => !groups.includes(g))
      ])
    }
  )

  app.post(
    '/groups/:user_id',
    {
      preValidation,
      schema: { summary: "Replace a user's groups (admins)", params: Params, body: Body, response: { 200: Reply } }
    },
    async request => {
      const replaced = namesOf(request.body.group)
      return await change(request.caller, request.params.user_id, () => replaced)
    }
  )

  app.delete(
    '/groups/:user_id',
    {
      preValidation,
      schema: {
        summary: 'Remove a user from ?group= (admins)',
        params: Params,
        querystring: DeleteQuery,
        response: { 200: Reply }
      }
    },
    async request => {
      const { group } = request.query
      if (!group) throw new QuireError('BAD_REQUEST', 'Group required: DELETE /groups/{user_id}?group=<name>')
      return await change(request.caller, request.params.user_id, groups => groups.filter(g => g !== group))
    }
  )
}
