// POST /aggregate/{model}: runs a pipeline with the caller's permissions: the
// soft-delete and owner filters go in before the first stage, $lookup reaches
// only models the caller may read, and only admins may ask for $out/$merge.
import type { Model } from '../models/model-definition.ts'
import type { Filter } from '../query/types.ts'
import { accessTo, ownerFilter } from '../auth/permissions.ts'
import { QuireError } from '../errors.ts'
import { refuseSecretFields } from '../auth/secret-fields.ts'
import type { DocumentContext } from './document-context.ts'

/** The pipeline in a body: an array, or {query: [...]} / {pipeline: [...]}. */
function pipelineOf (body: unknown): unknown[] {
  if (Array.isArray(body)) return body
  const wrapped = body && typeof body === 'object' ? (body as { query?: unknown, pipeline?: unknown }) : {}
  const inner = wrapped.query ?? wrapped.pipeline
  if (Array.isArray(inner)) return inner
  throw new QuireError('INVALID_BODY', 'The body must be an aggregation pipeline: an array of stages (or {"query": [...]})')
}

export async function aggregate (ctx: DocumentContext, model: Model, body: unknown, showDeleted: boolean): Promise<string> {
  const pipeline = pipelineOf(body)
  for (const stage of pipeline) {
    const match = stage && typeof stage === 'object' ? (stage as { $match?: unknown }).$match : undefined
    if (match && typeof match === 'object') refuseSecretFields(model, match as Filter)
  }
  const baseFilter = ctx.queryBuilder.readFilter(model, ctx.caller, showDeleted)
  const lookup = (name: string): { model: Model, filter: ReturnType<typeof ownerFilter> } => {
    const target = ctx.registry.get(name)
    const access = accessTo(target, ctx.caller, 'r')
    if (access === 'none') throw new QuireError('FORBIDDEN', `$lookup into ${name} is not allowed: no read access`)
    return { model: target, filter: { _deleted: false, ...ownerFilter(access, ctx.caller) } }
  }
  return await ctx.engine.aggregate(model, pipeline, { baseFilter, lookup, allowWrites: ctx.caller.admin })
}
