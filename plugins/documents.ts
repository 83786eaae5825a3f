// Decorates the instance with `documentContext(request)`: what the document
// operations (src/documents) need for one request.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { DocumentContext } from '../src/documents/document-context.ts'
import { cachedEstimates } from '../src/query/plan-list.ts'
import { scopedDocuments, type ScopedDocuments } from '../src/documents/scoped-documents.ts'

/**
 * One request's context. A class rather than an object literal with a getter: V8 gives every
 * evaluation of such a literal a new accessor pair in the old generation, which keeps the request
 * alive through young collections (plugins/request-scope.ts says what that cost).
 */
class RequestDocumentContext implements DocumentContext {
  readonly engine: DocumentContext['engine']
  readonly system: DocumentContext['system']
  readonly registry: DocumentContext['registry']
  readonly config: DocumentContext['config']
  readonly queryBuilder: DocumentContext['queryBuilder']
  readonly estimateCount: DocumentContext['estimateCount']
  readonly code: DocumentContext['code']
  readonly caller: DocumentContext['caller']
  readonly log: DocumentContext['log']

  constructor(app: FastifyInstance, estimateCount: DocumentContext['estimateCount'], request: FastifyRequest) {
    this.engine = app.db
    this.system = app.system
    this.registry = app.models
    this.config = app.config
    this.queryBuilder = app.queryBuilder
    this.estimateCount = estimateCount
    this.code = app.modelCode
    this.caller = request.caller
    this.log = request.log
  }

  /** Made when model code asks: most requests never do. */
  get documents(): ScopedDocuments {
    return scopedDocuments(this)
  }
}

async function documentsPlugin(app: FastifyInstance): Promise<void> {
  const estimateCount = cachedEstimates(app.db, app.models)
  app.decorate(
    'documentContext',
    (request: FastifyRequest): DocumentContext => new RequestDocumentContext(app, estimateCount, request)
  )
}

export default fp(documentsPlugin, { name: 'documents', dependencies: ['db', 'auth', 'queryBuilder', 'modelCode'] })
