// GET /csv/{model}: the list read as a CSV download (src/documents/csv/export-csv.ts),
// JXP's route. At most LIMITS.csvExports exports run at once per process (each holds a
// database cursor while its client reads), LIMITS.csvExportsPerClient of them for one client
// address; one more is a 429 to retry shortly.
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { ListQuery, ModelParams } from '../schemas/common.ts'
import { planCsvExport, writeCsv } from '../src/documents/csv/export-csv.ts'
import { LIMITS } from '../src/validation/limits.ts'
import { QuireError } from '../src/errors.ts'
import { clientAddress } from '../src/runtime/client-address.ts'

export default async function csvRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  let running = 0
  const runningFor = new Map<string, number>()

  app.get(
    '/csv/:model',
    {
      schema: {
        summary: "Export {model} documents as CSV (the list's parameters; streamed)",
        params: ModelParams,
        querystring: ListQuery,
        response: {
          200: Type.Unknown({ description: 'text/csv (attachment): a header row, then one row per document' })
        }
      }
    },
    async (request, reply) => {
      const model = app.models.get(request.params.model)
      const ctx = app.documentContext(request)
      const plan = await planCsvExport(ctx, model, request.query)
      const client = clientAddress(request.ip)
      const mine = runningFor.get(client) ?? 0
      if (mine >= LIMITS.csvExportsPerClient)
        throw new QuireError('RATE_LIMITED', 'Your address already has a CSV export running: let it finish first', {
          retryAfter: 1
        })
      if (running >= LIMITS.csvExports)
        throw new QuireError('RATE_LIMITED', 'Too many CSV exports are running: try again shortly', { retryAfter: 1 })
      running++
      runningFor.set(client, mine + 1)
      try {
        await writeCsv(ctx, model, plan, csv => {
          reply
            .type('text/csv; charset=utf-8')
            .header('content-disposition', `attachment; filename="${model.name}.csv"`)
            .send(csv)
        })
      } finally {
        running--
        const left = runningFor.get(client)! - 1
        if (left > 0) runningFor.set(client, left)
        else runningFor.delete(client)
      }
      return reply
    }
  )
}
