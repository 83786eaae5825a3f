// Write operations on documents: create, partial update (and restore). Which
// documents a write may touch, and how much of the result its reply shows, comes from
// src/permissions; when it finds none, a document the caller can still read answers 403,
// anything else 404. The model's hooks run around each write (src/documents/model-hooks.ts);
// links name only documents the writer can read (check-links.ts).
import type { Model } from '../models/model-definition.ts'
import { requireAccess } from '../permissions/access.ts'
import { authorizeUpdate, authorizeVisible, writeReply } from '../permissions/authorize/authorize-write.ts'
import { hashPasswordFields, shapeCreate, shapeUpdate } from './prepare-document.ts'
import { checkId } from './read-documents.ts'
import { checkLinks } from './check-links.ts'
import { createBody, updateBody } from './read-back.ts'
import { afterWrite, beforeCreate, beforeUpdate } from './model-hooks.ts'
import { QuireError } from '../errors.ts'
import { afterUserWrite, checkPasswordChange } from '../auth/users/user-rules.ts'
import type { DocumentContext } from './document-context.ts'

export interface WriteResult {
  message: string
  data?: string
}

function writeInput(ctx: DocumentContext, model: Model, body: unknown, form: boolean) {
  return { model, body, caller: ctx.caller, form }
}

/** The error of a write that matched nothing: 403 when the caller may read the document, 404 otherwise. */
export async function notWritable(
  ctx: DocumentContext,
  model: Model,
  id: string,
  action: string,
  includeDeleted: boolean,
  why = ''
): Promise<QuireError> {
  const visible = authorizeVisible(model, ctx.caller, id, includeDeleted)
  if (visible && (await ctx.engine.count(model, visible)) > 0) {
    return new QuireError('FORBIDDEN', `Not allowed to ${action} ${model.name} document ${id}${why}`)
  }
  return new QuireError('DOCUMENT_NOT_FOUND', `No ${model.name} document with id ${id}`)
}

/** POST /api/{model}: always creates; the caller becomes the owner. */
export async function createDocument(
  ctx: DocumentContext,
  model: Model,
  body: unknown,
  form: boolean
): Promise<WriteResult> {
  // 1. Authorise: the caller needs `c` on the model.
  requireAccess(model, ctx.caller, 'c')
  // 2. Parse: JXP's read-back keys dropped, dates normalized, schema checked, system fields set.
  const shaped = shapeCreate(writeInput(ctx, model, createBody(model, ctx.caller, body), form))
  // 3. Plan: the model's before-create hook may change or refuse it; password fields are hashed.
  const doc = await beforeCreate(ctx, model, shaped)
  // ... and its links authorised: a caller may link only to documents they can read.
  await checkLinks(ctx, model, doc)
  await hashPasswordFields(model, [doc], ctx.config.bcryptRounds)
  // 4. Execute: one insert, then the model's after-create hook.
  const data = await ctx.engine.insert(model, doc)
  await afterWrite(ctx, model, 'afterCreate', data)
  // 5. Shape: what of the stored document the caller may see; the route responds with it.
  return { message: `${model.name} created`, data: writeReply(model, ctx.caller, data) }
}

/** PUT /api/{model}/{_id}: merges the given top-level fields; `_deleted:false` restores, `_deleted:true` deletes. */
export async function updateDocument(
  ctx: DocumentContext,
  model: Model,
  id: string,
  body: unknown,
  form: boolean
): Promise<WriteResult> {
  checkId(id)
  requireAccess(model, ctx.caller, 'u')
  const sent = updateBody(model, ctx.caller, await checkPasswordChange(ctx, model, id, body))
  const set = await beforeUpdate(ctx, model, id, shapeUpdate(writeInput(ctx, model, sent.body, form)))
  await checkLinks(ctx, model, set)
  await hashPasswordFields(model, [set], ctx.config.bcryptRounds)
  const kind = { deletes: set._deleted === true, restores: set._deleted === false, sentOwner: sent.sentOwner }
  const data = await ctx.engine.updateOne(model, authorizeUpdate(model, ctx.caller, id, kind), set)
  if (data === null) {
    const why =
      sent.sentOwner === undefined ? '' : ' (or its _owner_id is not the one sent: only an admin can change it)'
    throw await notWritable(ctx, model, id, kind.deletes ? 'delete' : 'update', kind.restores, why)
  }
  await afterUserWrite(ctx.system, model, id, set)
  await afterWrite(ctx, model, 'afterUpdate', data)
  return { message: `${model.name} updated`, data: writeReply(model, ctx.caller, data) }
}
