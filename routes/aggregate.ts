// POST /aggregate/{model}: an aggregation pipeline -> {"data": [...]}.
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { ListQuery, ModelParams } from '../schemas/common.ts'
import { aggregate, aggregateShowDeleted } from '../src/documents/aggregate.ts'

export default async function aggregateRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.post(
    '/aggregate/:model',
    {
      schema: {
        summary: 'Run an aggregation pipeline on {model}',
        params: ModelParams,
        querystring: ListQuery,
        body: Type.Unknown()
      }
    },
    async (request, reply) => {
      const model = app.models.get(request.params.model)
      const data = await aggregate(
        app.documentContext(request),
        model,
        request.body,
        aggregateShowDeleted(request.query)
      )
      return reply.type('application/json; charset=utf-8').send(`{"data":${data}}`)
    }
  )
}
