// Write operations on documents: create, partial update (and restore), soft delete.
import type { Model } from '../models/model-definition.ts'
import { requireAccess, ownerFilter } from '../auth/permissions.ts'
import { prepareCreate, prepareUpdate } from './prepare-document.ts'
import { checkId } from './read-documents.ts'
import { QuireError } from '../errors.ts'
import { afterUserWrite } from '../auth/user-rules.ts'
import type { DocumentContext } from './document-context.ts'

export interface WriteResult { message: string, data?: string }

function writeInput (ctx: DocumentContext, model: Model, body: unknown, form: boolean) {
  return { model, body, caller: ctx.caller, form, bcryptRounds: ctx.config.bcryptRounds }
}

/** POST /api/{model}: always creates; the caller becomes the owner. */
export async function createDocument (ctx: DocumentContext, model: Model, body: unknown, form: boolean): Promise<WriteResult> {
  requireAccess(model, ctx.caller, 'c')
  const doc = await prepareCreate(writeInput(ctx, model, body, form))
  return { message: `${model.name} created`, data: await ctx.engine.insert(model, doc) }
}

/** PUT /api/{model}/{_id}: merges the given top-level fields; `_deleted:false` restores a deleted document. */
export async function updateDocument (ctx: DocumentContext, model: Model, id: string, body: unknown, form: boolean): Promise<WriteResult> {
  checkId(id)
  const access = requireAccess(model, ctx.caller, 'u')
  const set = await prepareUpdate(writeInput(ctx, model, body, form))
  if (set._deleted === true) requireAccess(model, ctx.caller, 'd')
  const filter = { _id: id, ...(set._deleted === false ? {} : { _deleted: false }), ...ownerFilter(access, ctx.caller) }
  const data = await ctx.engine.updateOne(model, filter, set)
  if (data === null) throw new QuireError('DOCUMENT_NOT_FOUND', `No ${model.name} document with id ${id}`)
  await afterUserWrite(ctx.engine, model, id, set)
  return { message: `${model.name} updated`, data }
}

/** DELETE /api/{model}/{_id}: soft delete (the document stays, with _deleted true). */
export async function deleteDocument (ctx: DocumentContext, model: Model, id: string): Promise<WriteResult> {
  checkId(id)
  const access = requireAccess(model, ctx.caller, 'd')
  const set = { _deleted: true, updatedAt: new Date().toISOString() }
  const data = await ctx.engine.updateOne(model, { _id: id, _deleted: false, ...ownerFilter(access, ctx.caller) }, set)
  if (data === null) throw new QuireError('DOCUMENT_NOT_FOUND', `No ${model.name} document with id ${id}`)
  await afterUserWrite(ctx.engine, model, id, set)
  return { message: `${model.name}/${id} deleted` }
}
