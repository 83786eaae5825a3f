// The MCP server's read tools: list_models, describe_model, find, count and aggregate (under
// JXP_COMPAT JXP's: jxp_list_models, jxp_describe_model, jxp_find, jxp_count, no aggregate). Each goes
// through the same document services as REST (src/documents: permissions and validation
// included) for the request's caller; results are bounded (bound-output.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import * as z from 'zod'
import type { DocumentContext } from '../documents/document-context.ts'
import { countDocuments, listDocuments } from '../documents/read-documents.ts'
import { aggregate } from '../documents/aggregate.ts'
import { describeEntry } from '../models/describe-model.ts'
import { lettersHeld, requireVisible, visibleModels } from '../permissions/authorize/authorize-discovery.ts'
import type { Filter } from '../query/types.ts'
import { MCP_LIMITS, boundRows, boundValue } from './bound-output.ts'
import { runTool, type ToolLog } from './tool-result.ts'
import type { ToolNamer } from './tool-names.ts'
import type { Model } from '../models/model-definition.ts'

const modelName = z.string().min(1).max(64).describe("the model's name (list_models shows them)")
const filter = z.record(z.string(), z.unknown()).optional().describe('a MongoDB filter, e.g. {"age": {"$gt": 30}}')
const showDeleted = z.boolean().optional().describe('include soft-deleted documents (where the caller may see them)')

const findArgs = {
  model: modelName,
  filter,
  sort: z
    .string()
    .max(500)
    .optional()
    .describe('sort terms separated by commas, "-" for descending: "-createdAt,name"'),
  fields: z.array(z.string().max(200)).max(50).optional().describe('only these fields (and _id)'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MCP_LIMITS.rows)
    .optional()
    .describe(`documents per page, at most ${MCP_LIMITS.rows} (the default)`),
  page: z.number().int().min(1).max(1_000_000).optional().describe('page number, from 1'),
  showDeleted
}

/** The list parameters of a find, in the list syntax REST reads. */
function listQuery(args: {
  sort?: string
  fields?: string[]
  limit?: number
  page?: number
  showDeleted?: boolean
}): Record<string, string | undefined> {
  return {
    sort: args.sort,
    fields: args.fields?.join(','),
    limit: String(args.limit ?? MCP_LIMITS.rows),
    page: args.page === undefined ? undefined : String(args.page),
    showDeleted: args.showDeleted === true ? 'true' : undefined
  }
}

export function registerReadTools(server: McpServer, ctx: DocumentContext, log: ToolLog, name: ToolNamer): void {
  const { registry, caller } = ctx
  /** JXP's list of models names each by `slug`. */
  const entry = (model: Model): Record<string, string> => ({
    model: model.name,
    ...(ctx.config.jxpCompat && { slug: model.name }),
    letters: lettersHeld(model, caller).join('')
  })

  server.registerTool(
    name('list_models'),
    { description: 'The models the caller may use, with the letters (c, r, u, d) held on each' },
    () =>
      runTool(name('list_models'), log, async () =>
        ctx.config.jxpCompat
          ? JSON.stringify(visibleModels(registry, caller).map(entry))
          : boundRows({}, visibleModels(registry, caller).map(entry))
      )
  )

  server.registerTool(
    name('describe_model'),
    {
      description: 'One model: its fields, required fields, links, indexes and methods',
      inputSchema: { model: modelName }
    },
    ({ model }) =>
      runTool(name('describe_model'), log, async () => {
        const found = registry.get(model)
        requireVisible(found, caller)
        return boundValue(
          describeEntry(found, lettersHeld(found, caller).join(''), ctx.code.describeMethods(found.name))
        )
      })
  )

  server.registerTool(
    name('find'),
    { description: 'Documents of a model matching a filter, sorted, projected and paged', inputSchema: findArgs },
    args =>
      runTool(name('find'), log, async () => {
        const page = JSON.parse(
          await listDocuments(ctx, registry.get(args.model), listQuery(args), '/mcp', (args.filter ?? {}) as Filter)
        ) as { data: unknown[]; count: number; page?: number; limit?: number }
        const { data, ...head } = page
        return boundRows(head, data)
      })
  )

  server.registerTool(
    name('count'),
    {
      description: 'The number of documents of a model matching a filter',
      inputSchema: { model: modelName, filter, showDeleted }
    },
    args =>
      runTool(name('count'), log, async () => {
        const model = registry.get(args.model)
        const query = { ...listQuery({ showDeleted: args.showDeleted }), limit: undefined }
        return JSON.stringify({ count: await countDocuments(ctx, model, query, (args.filter ?? {}) as Filter) })
      })
  )

  // JXP offers no aggregation tool: under JXP_COMPAT the tools are JXP's five.
  if (ctx.config.jxpCompat) return
  server.registerTool(
    'aggregate',
    {
      description: 'Runs a MongoDB aggregation pipeline on a model (the stages the REST /aggregate endpoint accepts)',
      inputSchema: {
        model: modelName,
        pipeline: z
          .array(z.record(z.string(), z.unknown()))
          .max(50)
          .describe('the stages, e.g. [{"$group": {"_id": "$kind", "n": {"$sum": 1}}}]'),
        showDeleted
      }
    },
    args =>
      runTool('aggregate', log, async () =>
        boundRows(
          {},
          JSON.parse(
            await aggregate(ctx, registry.get(args.model), args.pipeline, args.showDeleted === true)
          ) as unknown[]
        )
      )
  )
}
