// Refuses a write whose link fields name documents its writer cannot read
// (src/permissions/authorize/authorize-links.ts), with one answer for a document that is unreadable,
// deleted or missing, so that the refusal reveals nothing about it.
import type { Doc } from '../storage/engine.ts'
import type { Model } from '../models/model-definition.ts'
import { authorizeLinks } from '../permissions/authorize/authorize-links.ts'
import { QuireError } from '../errors.ts'
import type { DocumentContext } from './document-context.ts'

export async function checkLinks(ctx: DocumentContext, model: Model, fields: Doc): Promise<void> {
  for (const check of authorizeLinks(ctx.registry, model, ctx.caller, fields)) {
    if ((await ctx.engine.count(check.target, check.readable)) === check.ids.length) continue
    throw new QuireError('VALIDATION_FAILED', `${check.field} must name ${check.target.name} documents you can read`, [
      { field: check.field, message: `must be the id of a ${check.target.name} document you can read` }
    ])
  }
}
