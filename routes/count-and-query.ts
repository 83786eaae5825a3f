// GET /count/{model} (exact count, filters apply) and POST /query/{model}
// (a MongoDB filter in the body; the list features still apply).
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { CountResponse, ListQuery, ModelParams } from '../schemas/common.ts'
import { QueryBody } from '../schemas/document-bodies.ts'
import { countDocuments, listDocuments } from '../src/documents/read-documents.ts'
import { QuireError } from '../src/errors.ts'

export default async function countAndQueryRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

  app.get(
    '/count/:model',
    {
      schema: {
        summary: 'Count {model} documents (filters apply)',
        params: ModelParams,
        querystring: ListQuery,
        response: { 200: CountResponse }
      }
    },
    async request => {
      const model = app.models.get(request.params.model)
      return { count: await countDocuments(app.documentContext(request), model, request.query) }
    }
  )

  app.post(
    '/query/:model',
    {
      schema: {
        summary: 'List {model} documents matching a MongoDB filter',
        params: ModelParams,
        querystring: ListQuery,
        body: QueryBody
      }
    },
    async (request, reply) => {
      const model = app.models.get(request.params.model)
      if (request.query.search !== undefined)
        throw new QuireError('SEARCH_NOT_SUPPORTED', 'Full-text search is not supported by /query')
      const json = await listDocuments(
        app.documentContext(request),
        model,
        request.query,
        request.url,
        request.body.query ?? {}
      )
      return reply.type('application/json; charset=utf-8').send(json)
    }
  )
}
