// The data endpoints: /api/{model} and /api/{model}/{_id} (GET, POST, PUT, DELETE;
// DELETE takes JXP's _permaDelete and _cascade), and POST /update/{model}/{_id}, JXP's
// legacy form of PUT. Reads splice the stored JSON text into the reply without re-serializing it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { DocumentParams, ListQuery, ModelParams } from '../schemas/common.ts'
import { DocumentBody } from '../schemas/document-bodies.ts'
import { listDocuments, readDocument } from '../src/documents/read-documents.ts'
import { createDocument, updateDocument, type WriteResult } from '../src/documents/write-documents.ts'
import { deleteDocument, deleteOptions } from '../src/documents/delete-document.ts'
import { QuireError, errorBody } from '../src/errors.ts'
import { dropUnknownFields } from '../src/jxp/unknown-fields.ts'
import type { Model } from '../src/models/model-definition.ts'
import type { ReadCacheService } from '../plugins/read-cache.ts'

function isForm(request: FastifyRequest): boolean {
  return (request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')
}

function sendJson(reply: FastifyReply, json: string | Buffer): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json)
}

function sendWrite(reply: FastifyReply, result: WriteResult): FastifyReply {
  const head = `{"status":"ok","message":${JSON.stringify(result.message)}`
  return sendJson(reply, result.data === undefined ? `${head}}` : `${head},"data":${result.data}}`)
}

const ALLOWED_METHODS = 'GET, POST, PUT, DELETE, OPTIONS'

export default async function documentRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  /** A write's body; under JXP_COMPAT without the fields the model does not name. */
  const writeBody = (model: Model, request: FastifyRequest, reply: FastifyReply): unknown =>
    app.config.jxpCompat ? dropUnknownFields(model, request.body, reply, request.log) : request.body
  /** A read's answer, through the response cache when CACHE_ENABLED; with it off, no cache code runs. */
  const serveRead: ReadCacheService['serve'] = app.config.cacheEnabled
    ? app.readCache.serve
    : async (_request, _reply, _model, read) => await read()

  app.get(
    '/api/:model',
    { schema: { summary: 'List {model} documents', params: ModelParams, querystring: ListQuery } },
    async (request, reply) => {
      const model = app.models.get(request.params.model)
      return sendJson(
        reply,
        await serveRead(request, reply, model, () =>
          listDocuments(app.documentContext(request), model, request.query, request.url)
        )
      )
    }
  )

  app.get(
    '/api/:model/:id',
    { schema: { summary: 'Read one {model} document', params: DocumentParams, querystring: ListQuery } },
    async (request, reply) => {
      const model = app.models.get(request.params.model)
      return sendJson(
        reply,
        await serveRead(request, reply, model, () =>
          readDocument(app.documentContext(request), model, request.params.id, request.query)
        )
      )
    }
  )

  app.post(
    '/api/:model',
    { schema: { summary: 'Create a {model} document', params: ModelParams, body: DocumentBody } },
    async (request, reply) => {
      const model = app.models.get(request.params.model)
      return sendWrite(
        reply,
        await createDocument(app.documentContext(request), model, writeBody(model, request, reply), isForm(request))
      )
    }
  )

  for (const [method, url] of [
    ['PUT', '/api/:model/:id'],
    ['POST', '/update/:model/:id']
  ] as const) {
    app.route({
      method,
      url,
      schema: {
        summary:
          method === 'PUT'
            ? 'Update a {model} document (partial merge; {"_deleted": false} restores)'
            : "Update a {model} document (JXP's legacy alias of PUT)",
        params: DocumentParams,
        body: DocumentBody
      },
      handler: async (request, reply) => {
        const model = app.models.get(request.params.model)
        return sendWrite(
          reply,
          await updateDocument(
            app.documentContext(request),
            model,
            request.params.id,
            writeBody(model, request, reply),
            isForm(request)
          )
        )
      }
    })
  }

  app.delete(
    '/api/:model/:id',
    {
      schema: {
        summary: 'Delete a {model} document (soft; _permaDelete=1 removes it, _cascade=1 also what links to it)',
        params: DocumentParams,
        querystring: ListQuery
      }
    },
    async (request, reply) => {
      const model = app.models.get(request.params.model)
      return sendWrite(
        reply,
        await deleteDocument(app.documentContext(request), model, request.params.id, deleteOptions(request.query))
      )
    }
  )

  app.patch('/api/*', { schema: { hide: true } }, async (request, reply) => {
    const err = new QuireError('METHOD_NOT_ALLOWED', `${request.method} is not supported: use PUT for partial updates`)
    return reply.code(err.status).header('allow', ALLOWED_METHODS).send(errorBody(err))
  })

  // What the API allows. With CORS_ORIGINS set, @fastify/cors answers every OPTIONS (preflights
  // included) in its hook before this route (plugins/cors.ts).
  app.options('/api/*', { schema: { hide: true } }, async (_request, reply) =>
    reply.code(204).header('allow', ALLOWED_METHODS).send()
  )
}
