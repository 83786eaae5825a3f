// JXP_COMPAT: a get by id of a soft-deleted document answers JXP's 404 message,
// `Document <id> is deleted on <Model>` (the Mongoose model name), which JXP's front ends show;
// Quire's own says only that there is no such document. Only a caller who may read the
// deleted document learns that it was deleted.
import type { DocumentContext } from '../documents/document-context.ts'
import type { Model } from '../models/model-definition.ts'
import type { ListParams } from '../query/parse-list-params.ts'
import { QuireError } from '../errors.ts'

/** JXP's 404 for `id` when it is a deleted document the caller may read; undefined otherwise. */
export async function deletedDocumentError(
  ctx: DocumentContext,
  model: Model,
  id: string,
  params: ListParams
): Promise<QuireError | undefined> {
  if (!ctx.config.jxpCompat || params.showDeleted) return undefined
  const deleted = await ctx.engine.findOne(
    model,
    ctx.queryBuilder.one(model, ctx.caller, id, {
      ...params,
      showDeleted: true,
      populate: new Map(),
      autopopulate: false
    })
  )
  if (deleted === null) return undefined
  const mongooseName = model.name.charAt(0).toUpperCase() + model.name.slice(1)
  return new QuireError('DOCUMENT_NOT_FOUND', `Document ${id} is deleted on ${mongooseName}`)
}
