// Group administration (admins only): GET /users/:id/groups,
// POST /users/:id/groups {group} and DELETE /users/:id/groups/:group.
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { GroupBody, GroupParams, GroupsResponse, UserParams } from '../schemas/auth.ts'
import { requireAdmin } from '../src/permissions/access.ts'
import { changeGroups, checkGroupName, listGroups, requireGroupAdmin } from '../src/auth/users/user-groups.ts'

export default async function userRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const schema = { response: { 200: GroupsResponse } }

  app.get(
    '/users/:id/groups',
    { schema: { summary: "A user's groups (admins)", ...schema, params: UserParams } },
    async request => {
      requireAdmin(request.caller, 'see the groups of users')
      return { status: 'ok' as const, groups: await listGroups(app.system, request.params.id) }
    }
  )

  app.post(
    '/users/:id/groups',
    { schema: { summary: 'Add a user to a group (admins)', ...schema, params: UserParams, body: GroupBody } },
    async request => {
      requireGroupAdmin(request.caller)
      const { group } = request.body
      checkGroupName(group)
      const groups = await changeGroups(app.system, request.caller, request.params.id, list =>
        list.includes(group) ? list : [...list, group]
      )
      return { status: 'ok' as const, message: `User ${request.params.id} is in group ${group}`, groups }
    }
  )

  app.delete(
    '/users/:id/groups/:group',
    { schema: { summary: 'Remove a user from a group (admins)', ...schema, params: GroupParams } },
    async request => {
      const { id, group } = request.params
      const groups = await changeGroups(app.system, request.caller, id, list => list.filter(g => g !== group))
      return { status: 'ok' as const, message: `User ${id} is not in group ${group}`, groups }
    }
  )
}
