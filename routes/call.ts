// JXP's /call routes: GET or POST /call/{model}/{method} and /call/{model}/{id}/{method}
// run a method the model's code exposes (src/documents/call-method.ts); the body (POST)
// is the method's input, its result the reply.
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { callMethod } from '../src/documents/call-method.ts'

const MethodName = Type.String({ maxLength: 64 })
const ModelParam = Type.String({ maxLength: 64 })
const Query = Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]))
const Result = Type.Unknown({ description: 'whatever the method returns, as JSON' })

export default async function callRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

  app.route({
    method: ['GET', 'POST'],
    url: '/call/:model/:method',
    schema: {
      summary: 'Run a method the model {model} exposes',
      params: Type.Object({ model: ModelParam, method: MethodName }),
      querystring: Query,
      response: { 200: Result }
    },
    handler: async (request, reply) => {
      const model = app.models.get(request.params.model)
      const call = { name: request.params.method, body: request.body, params: request.query }
      return reply
        .type('application/json; charset=utf-8')
        .send(await callMethod(app.documentContext(request), model, call))
    }
  })

  app.route({
    method: ['GET', 'POST'],
    url: '/call/:model/:id/:method',
    schema: {
      summary: 'Run a method the model {model} exposes on one document',
      params: Type.Object({ model: ModelParam, id: Type.String({ maxLength: 64 }), method: MethodName }),
      querystring: Query,
      response: { 200: Result }
    },
    handler: async (request, reply) => {
      const model = app.models.get(request.params.model)
      const call = { name: request.params.method, id: request.params.id, body: request.body, params: request.query }
      return reply
        .type('application/json; charset=utf-8')
        .send(await callMethod(app.documentContext(request), model, call))
    }
  })
}
