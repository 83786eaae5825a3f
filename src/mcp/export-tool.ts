// The MCP tool export_csv (jxp_export_csv under JXP_COMPAT, as JXP names it): a page of matching
// documents as CSV text, through the same export as GET /csv/{model} (permissions, columns,
// formula escaping), at most MCP_LIMITS.rows rows.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import * as z from 'zod'
import type { DocumentContext } from '../documents/document-context.ts'
import { planCsvExport, writeCsv } from '../documents/csv/export-csv.ts'
import { MCP_LIMITS } from './bound-output.ts'
import { runTool, type ToolLog } from './tool-result.ts'
import type { ToolNamer } from './tool-names.ts'

const exportArgs = {
  model: z.string().min(1).max(64).describe("the model's name"),
  filter: z.record(z.string(), z.unknown()).optional().describe('equality conditions on fields, e.g. {"kind": "a"}'),
  fields: z.array(z.string().max(200)).max(50).optional().describe('only these columns'),
  sort: z.string().max(500).optional().describe('sort terms separated by commas, "-" for descending'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MCP_LIMITS.rows)
    .optional()
    .describe(`rows, at most ${MCP_LIMITS.rows} (the default)`),
  page: z.number().int().min(1).max(1_000_000).optional().describe('page number, from 1')
}

/** The export's URL parameters: `filter[field]=value` for each condition, as REST takes them. */
function exportQuery(args: {
  filter?: Record<string, unknown>
  fields?: string[]
  sort?: string
  limit?: number
  page?: number
}): Record<string, unknown> {
  return {
    ...(args.filter !== undefined && {
      filter: Object.fromEntries(
        Object.entries(args.filter).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])
      )
    }),
    fields: args.fields?.join(','),
    sort: args.sort,
    limit: String(args.limit ?? MCP_LIMITS.rows),
    page: args.page === undefined ? undefined : String(args.page)
  }
}

export function registerExportTool(server: McpServer, ctx: DocumentContext, log: ToolLog, name: ToolNamer): void {
  server.registerTool(
    name('export_csv'),
    {
      description: 'Matching documents of a model as CSV text (a header row, then a row per document); no populate',
      inputSchema: exportArgs
    },
    args =>
      runTool(name('export_csv'), log, async () => {
        const model = ctx.registry.get(args.model)
        const plan = await planCsvExport(ctx, model, exportQuery(args) as Parameters<typeof planCsvExport>[2])
        const chunks: string[] = []
        await writeCsv(ctx, model, plan, csv => {
          csv.on('data', (chunk: Buffer | string) => chunks.push(String(chunk)))
        })
        return chunks.join('')
      })
  )
}
