// Write operations on documents: create, partial update (and restore), soft delete.
// Which documents a write may touch comes from src/permissions; when it finds none,
// a document the caller can still read answers 403, anything else 404.
import type { Model } from '../models/model-definition.ts'
import { requireAccess } from '../permissions/access.ts'
import { authorizeDelete, authorizeUpdate, authorizeVisible } from '../permissions/authorize-write.ts'
import { prepareCreate, prepareUpdate } from './prepare-document.ts'
import { checkId } from './read-documents.ts'
import { QuireError } from '../errors.ts'
import { afterUserWrite, checkPasswordChange } from '../auth/user-rules.ts'
import type { DocumentContext } from './document-context.ts'

export interface WriteResult { message: string, data?: string }

function writeInput (ctx: DocumentContext, model: Model, body: unknown, form: boolean) {
  return { model, body, caller: ctx.caller, form, bcryptRounds: ctx.config.bcryptRounds }
}

/** The error of a write that matched nothing: 403 when the caller may read the document, 404 otherwise. */
async function notWritable (ctx: DocumentContext, model: Model, id: string, action: string, includeDeleted: boolean): Promise<QuireError> {
  const visible = authorizeVisible(model, ctx.caller, id, includeDeleted)
  if (visible && await ctx.engine.count(model, visible) > 0) {
    return new QuireError('FORBIDDEN', `Not allowed to ${action} ${model.name} document ${id}`)
  }
  return new QuireError('DOCUMENT_NOT_FOUND', `No ${model.name} document with id ${id}`)
}

/** POST /api/{model}: always creates; the caller becomes the owner. */
export async function createDocument (ctx: DocumentContext, model: Model, body: unknown, form: boolean): Promise<WriteResult> {
  requireAccess(model, ctx.caller, 'c')
  const doc = await prepareCreate(writeInput(ctx, model, body, form))
  return { message: `${model.name} created`, data: await ctx.engine.insert(model, doc) }
}

/** PUT /api/{model}/{_id}: merges the given top-level fields; `_deleted:false` restores, `_deleted:true` deletes. */
export async function updateDocument (ctx: DocumentContext, model: Model, id: string, body: unknown, form: boolean): Promise<WriteResult> {
  checkId(id)
  requireAccess(model, ctx.caller, 'u')
  const set = await prepareUpdate(writeInput(ctx, model, await checkPasswordChange(ctx, model, id, body), form))
  const kind = { deletes: set._deleted === true, restores: set._deleted === false }
  const data = await ctx.engine.updateOne(model, authorizeUpdate(model, ctx.caller, id, kind), set)
  if (data === null) throw await notWritable(ctx, model, id, kind.deletes ? 'delete' : 'update', kind.restores)
  await afterUserWrite(ctx.system, model, id, set)
  return { message: `${model.name} updated`, data }
}

/** DELETE /api/{model}/{_id}: soft delete (the document stays, with _deleted true). */
export async function deleteDocument (ctx: DocumentContext, model: Model, id: string): Promise<WriteResult> {
  checkId(id)
  const set = { _deleted: true, updatedAt: new Date().toISOString() }
  const data = await ctx.engine.updateOne(model, authorizeDelete(model, ctx.caller, id), set)
  if (data === null) throw await notWritable(ctx, model, id, 'delete', false)
  await afterUserWrite(ctx.system, model, id, set)
  return { message: `${model.name}/${id} deleted` }
}
