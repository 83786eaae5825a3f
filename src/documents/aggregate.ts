// POST /aggregate/{model}: runs a client's pipeline with the caller's permissions
// (src/permissions/authorize/authorize-pipeline.ts decides what every stage may read), JXP's
// literal strings ("new Date(...)", "ObjectId(...)", "relative_date(...)") converted.
import type { Model } from '../models/model-definition.ts'
import { authorizePipeline } from '../permissions/authorize/authorize-pipeline.ts'
import { QuireError } from '../errors.ts'
import { reviveJxpLiterals } from '../query/jxp-literals.ts'
import { readFlags } from '../query/param-names.ts'
import type { QueryParams } from '../query/parse-list-params.ts'

/** showDeleted from the URL; JXP's allowDiskUse is accepted (no engine needs it); other parameters are ignored. */
export function aggregateShowDeleted(query: QueryParams): boolean {
  return readFlags(query, ['showDeleted', 'allowDiskUse']).showDeleted
}
import type { DocumentContext } from './document-context.ts'

/** The pipeline in a body: an array, or {query: [...]} / {pipeline: [...]}. */
function pipelineOf(body: unknown): unknown[] {
  if (Array.isArray(body)) return body
  const wrapped = body && typeof body === 'object' ? (body as { query?: unknown; pipeline?: unknown }) : {}
  const inner = wrapped.query ?? wrapped.pipeline
  if (Array.isArray(inner)) return inner
  throw new QuireError(
    'INVALID_BODY',
    'The body must be an aggregation pipeline: an array of stages (or {"query": [...]})'
  )
}

export async function aggregate(
  ctx: DocumentContext,
  model: Model,
  body: unknown,
  showDeleted: boolean
): Promise<string> {
  const plan = authorizePipeline(ctx.caller, ctx.registry, model, reviveJxpLiterals(pipelineOf(body)), showDeleted)
  return await ctx.engine.aggregate(model, plan)
}
