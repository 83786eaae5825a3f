// Decorates the instance with `documentContext(request)`: what the document
// operations (src/documents) need for one request.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { DocumentContext } from '../src/documents/document-context.ts'
import { cachedEstimates } from '../src/query/plan-list.ts'
import { scopedDocuments } from '../src/documents/scoped-documents.ts'

async function documentsPlugin(app: FastifyInstance): Promise<void> {
  const estimateCount = cachedEstimates(app.db, app.models)
  app.decorate('documentContext', (request: FastifyRequest): DocumentContext => {
    const ctx: DocumentContext = {
      engine: app.db,
      system: app.system,
      registry: app.models,
      config: app.config,
      caller: request.caller,
      queryBuilder: app.queryBuilder,
      estimateCount,
      code: app.modelCode,
      get documents() {
        return scopedDocuments(ctx)
      },
      log: request.log
    }
    return ctx
  })
}

export default fp(documentsPlugin, { name: 'documents', dependencies: ['db', 'auth', 'queryBuilder', 'modelCode'] })
