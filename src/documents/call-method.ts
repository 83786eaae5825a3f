// /call/{model}/{method} and /call/{model}/{id}/{method}: runs a method a model's code
// exposes (src/models/model-code.ts), for a caller who holds the letter it declares;
// an item call gets the document as far as the caller may read it. The result leaves
// through the field policy: no object in it keeps a password field's name.
import type { Doc } from '../storage/engine.ts'
import type { Model } from '../models/model-definition.ts'
import { authorizeCall, authorizeCallItem } from '../permissions/authorize/authorize-call.ts'
import { requireVisible } from '../permissions/authorize/authorize-discovery.ts'
import { hiddenNames, withoutHiddenFields } from '../permissions/field-policy.ts'
import { QuireError } from '../errors.ts'
import { checkId } from './read-documents.ts'
import { codeContext, runModelCode } from './model-hooks.ts'
import type { DocumentContext } from './document-context.ts'

export interface MethodCall {
  name: string
  /** The document of an item call. */
  id?: string
  body: unknown
  params: Record<string, unknown>
}

async function itemOf(ctx: DocumentContext, model: Model, letter: 'c' | 'r' | 'u' | 'd', id: string): Promise<Doc> {
  checkId(id)
  const text = await ctx.engine.findOne(model, authorizeCallItem(model, ctx.caller, letter, id))
  if (text === null) throw new QuireError('DOCUMENT_NOT_FOUND', `No ${model.name} document with id ${id}`)
  return JSON.parse(text) as Doc
}

/** Runs the method and returns its result as JSON text (`null` when it returns nothing). */
export async function callMethod(ctx: DocumentContext, model: Model, call: MethodCall): Promise<string> {
  requireVisible(model, ctx.caller)
  const method = ctx.code.method(model.name, call.name)
  const document = call.id === undefined ? undefined : await itemOf(ctx, model, method.letter, call.id)
  if (call.id === undefined) authorizeCall(model, ctx.caller, method.letter)
  const { apikey: _key, jwt: _jwt, ...params } = call.params
  const result = await runModelCode(() =>
    method.run(codeContext(ctx, model, { body: call.body ?? {}, params, ...(document && { document }) }))
  )
  const json = JSON.stringify(result)
  return json === undefined ? 'null' : JSON.stringify(withoutHiddenFields(JSON.parse(json), hiddenNames(ctx.registry)))
}
