// GET /csv/{model}: the list read as a CSV download (src/documents/export-csv.ts),
// JXP's route. At most LIMITS.csvExports exports run at once per process (each holds a
// database cursor while its client reads); one more is a 429 to retry shortly.
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { ListQuery, ModelParams } from '../schemas/common.ts'
import { planCsvExport, writeCsv } from '../src/documents/export-csv.ts'
import { LIMITS } from '../src/validation/limits.ts'
import { QuireError } from '../src/errors.ts'

export default async function csvRoutes (fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  let running = 0

  app.get('/csv/:model', {
    schema: {
      summary: 'Export {model} documents as CSV (the list\'s parameters; streamed)',
      params: ModelParams,
      querystring: ListQuery,
      response: { 200: Type.Unknown({ description: 'text/csv (attachment): a header row, then one row per document' }) }
    }
  }, async (request, reply) => {
    const model = app.models.get(request.params.model)
    const ctx = app.documentContext(request)
    const plan = await planCsvExport(ctx, model, request.query)
    if (running >= LIMITS.csvExports) throw new QuireError('RATE_LIMITED', 'Too many CSV exports are running: try again shortly', { retryAfter: 1 })
    running++
    try {
      await writeCsv(ctx, model, plan, csv => {
        reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${model.name}.csv"`).send(csv)
      })
    } finally {
      running--
    }
    return reply
  })
}
