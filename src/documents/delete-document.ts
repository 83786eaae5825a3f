// DELETE /api/{model}/{_id} with JXP's semantics: a soft delete, or a permanent one
// (_permaDelete=1); refused with 409 naming the referring model and field while live
// documents link to it, unless _cascade=1 deletes them too (never one the caller could
// not delete itself). The engine does all of it in one step; the reply never says
// "deleted" for anything that was not.
import type { Model } from '../models/model-definition.ts'
import { authorizeDeletion, deletionTarget, type DeleteOptions } from '../permissions/authorize/authorize-delete.ts'
import type { Authorized } from '../permissions/authorized.ts'
import type { DeletePlan } from '../storage/engine.ts'
import { checkId } from './read-documents.ts'
import { notWritable, type WriteResult } from './write-documents.ts'
import { afterWrite, beforeDelete } from './model-hooks.ts'
import { QuireError } from '../errors.ts'
import { afterUserWrite, refuseLinkUserChange } from '../auth/users/user-rules.ts'
import { readFlags } from '../query/param-names.ts'
import type { QueryParams } from '../query/parse-list-params.ts'
import type { DocumentContext } from './document-context.ts'

/** JXP's flags of a DELETE: `_permaDelete=1`, `_cascade=1` (a misspelled one is a 400, never a different delete). */
export function deleteOptions(query: QueryParams): DeleteOptions {
  const flags = readFlags(query, ['_permaDelete', '_cascade'])
  return { permanent: flags._permaDelete, cascade: flags._cascade }
}

/**
 * Runs the model's beforeDelete hook, only for a document the caller may delete (a hook with
 * effects, or a refusal of its own, must not answer a caller who could only read it).
 */
async function runBeforeDelete(
  ctx: DocumentContext,
  model: Model,
  id: string,
  plan: Authorized<DeletePlan>
): Promise<void> {
  if (!ctx.code.hooksOf(model.name).beforeDelete) return
  if ((await ctx.engine.count(model, deletionTarget(plan))) > 0) await beforeDelete(ctx, model, id, plan.permanent)
}

export async function deleteDocument(
  ctx: DocumentContext,
  model: Model,
  id: string,
  options: DeleteOptions = { permanent: false, cascade: false }
): Promise<WriteResult> {
  checkId(id)
  refuseLinkUserChange(model, ctx.caller, 'delete a user')
  const plan = authorizeDeletion(ctx.registry, model, ctx.caller, id, options)
  await runBeforeDelete(ctx, model, id, plan)
  const outcome = await ctx.engine.deleteOne(model, plan)
  switch (outcome.status) {
    case 'missing':
      throw await notWritable(ctx, model, id, 'delete', options.permanent)
    case 'referenced':
      throw new QuireError('REFERENCED', `Parent link item exists in ${outcome.model}/${outcome.field}`, {
        model: outcome.model,
        field: outcome.field,
        hint: 'delete with _cascade=1 to delete the linking documents too'
      })
    case 'blocked':
      throw new QuireError(
        'FORBIDDEN',
        `Cannot cascade into ${outcome.model}/${outcome.field}: some ${outcome.model} documents linking ` +
          `to ${model.name}/${id} are not yours to delete`,
        { model: outcome.model, field: outcome.field }
      )
  }
  await afterUserWrite(ctx.system, model, id, { _deleted: true })
  await afterWrite(ctx, model, 'afterDelete', outcome.document, options.permanent)
  return { message: `${model.name}/${id} deleted` }
}
