// Model discovery, JXP's GET /model (every model the caller holds a letter on, with
// its perms, fields, links, indexes and methods) and GET /model/{name} (one model,
// path by path, as JXP answers it). Models the caller holds no letter on are not shown.
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { describeEntry, describePaths } from '../src/models/describe-model.ts'
import { lettersHeld, requireVisible, visibleModels } from '../src/permissions/authorize/authorize-discovery.ts'

const Open = { additionalProperties: true }

const ModelEntry = Type.Object({
  model: Type.String(),
  file: Type.Union([Type.String(), Type.Null()]),
  perms: Type.Record(Type.String(), Type.String()),
  description: Type.Optional(Type.String()),
  letters: Type.String({ description: 'the letters (c, r, u, d) the caller holds on the model' }),
  fields: Type.Record(Type.String(), Type.Object({ type: Type.String() }, Open)),
  required: Type.Array(Type.String()),
  links: Type.Array(
    Type.Object({ field: Type.String(), as: Type.String(), model: Type.String(), many: Type.Boolean() })
  ),
  indexes: Type.Array(Type.Object({ fields: Type.Array(Type.String()), unique: Type.Boolean() })),
  fulltext: Type.Array(Type.String()),
  methods: Type.Array(
    Type.Object({ name: Type.String(), letter: Type.String(), description: Type.Optional(Type.String()) })
  )
})

const PathDescription = Type.Object({
  path: Type.String(),
  instance: Type.String(),
  isRequired: Type.Boolean(),
  options: Type.Object({ type: Type.String() }, Open),
  caster: Type.Optional(Type.Object({ instance: Type.String() })),
  enumValues: Type.Optional(Type.Array(Type.Unknown())),
  defaultValue: Type.Optional(Type.Unknown())
})

export default async function modelRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

  app.get(
    '/model',
    {
      schema: {
        summary: 'The models the caller may use, with perms, fields, links, indexes and methods',
        response: { 200: Type.Array(ModelEntry) }
      }
    },
    async request => {
      return visibleModels(app.models, request.caller).map(model =>
        describeEntry(model, lettersHeld(model, request.caller).join(''), app.modelCode.describeMethods(model.name))
      )
    }
  )

  app.get(
    '/model/:name',
    {
      schema: {
        summary: 'One model, field by field, as JXP describes it',
        params: Type.Object({ name: Type.String({ maxLength: 64 }) }),
        response: { 200: Type.Record(Type.String(), PathDescription) }
      }
    },
    async request => {
      const model = app.models.get(request.params.name)
      requireVisible(model, request.caller)
      return describePaths(model)
    }
  )
}
