// POST /bulkwrite/{model}: MongoDB-style bulk operations in one transaction (under JXP_COMPAT
// without the fields the model does not name, as the single-document writes).
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { ModelParams } from '../schemas/common.ts'
import { bulkWrite } from '../src/documents/bulk-write.ts'
import { dropUnknownBulkFields } from '../src/jxp/unknown-fields.ts'

const BulkResponse = Type.Object({
  status: Type.Literal('ok'),
  nInserted: Type.Integer(),
  nMatched: Type.Integer(),
  nModified: Type.Integer(),
  nUpserted: Type.Integer(),
  nDeleted: Type.Integer(),
  upsertedIds: Type.Array(Type.String()),
  data: Type.Object(
    {
      ok: Type.Literal(1),
      writeErrors: Type.Array(Type.Unknown()),
      writeConcernErrors: Type.Array(Type.Unknown()),
      insertedIds: Type.Array(Type.Object({ index: Type.Integer(), _id: Type.String() })),
      nInserted: Type.Integer(),
      nUpserted: Type.Integer(),
      nMatched: Type.Integer(),
      nModified: Type.Integer(),
      nRemoved: Type.Integer(),
      upserted: Type.Array(Type.Object({ index: Type.Integer(), _id: Type.String() }))
    },
    { description: "the result as JXP answers it (MongoDB's BulkWriteResult)" }
  )
})

export default async function bulkWriteRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.post(
    '/bulkwrite/:model',
    {
      schema: {
        summary: 'Bulk-write {model} documents in one transaction',
        params: ModelParams,
        body: Type.Array(Type.Unknown()),
        response: { 200: BulkResponse }
      }
    },
    async (request, reply) => {
      const model = app.models.get(request.params.model)
      // Under JXP_COMPAT, fields the model does not name are dropped (and named), as on the single-document paths.
      const operations = app.config.jxpCompat
        ? dropUnknownBulkFields(model, request.body, reply, request.log)
        : request.body
      return { status: 'ok' as const, ...(await bulkWrite(app.documentContext(request), model, operations)) }
    }
  )
}
