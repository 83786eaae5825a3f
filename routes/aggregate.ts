// POST /aggregate/{model}: an aggregation pipeline -> {"data": [...]}.
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { ModelParams } from '../schemas/common.ts'
import { aggregate } from '../src/documents/aggregate.ts'

const AggregateQuery = Type.Object({
  showDeleted: Type.Optional(Type.Boolean()),
  apikey: Type.Optional(Type.String()),
  jwt: Type.Optional(Type.String())
}, { additionalProperties: false })

export default async function aggregateRoutes (fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.post('/aggregate/:model', { schema: { summary: 'Run an aggregation pipeline on {model}', params: ModelParams, querystring: AggregateQuery, body: Type.Unknown() } }, async (request, reply) => {
    const model = app.models.get(request.params.model)
    const data = await aggregate(app.documentContext(request), model, request.body, request.query.showDeleted ?? false)
    return reply.type('application/json; charset=utf-8').send(`{"data":${data}}`)
  })
}
