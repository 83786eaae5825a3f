// Authorizes a call of a model's method (/call/{model}/{method} and
// /call/{model}/{id}/{method}): the letter the method declares, and for an item call
// the one document the method receives, as far as the caller may read it and (for
// an update or delete method) may do that to it.
import type { Caller } from '../../auth/caller.ts'
import type { FindQuery } from '../../storage/engine.ts'
import type { Model } from '../../models/model-definition.ts'
import { accessTo, requireAccess, type Letter } from '../access.ts'
import { authorized, type Authorized } from '../authorized.ts'
import { allOf, ownerCondition, readScope } from '../row-scope.ts'

/** Throws 401 (anonymous) or 403 unless the caller holds the method's letter on the model. */
export function authorizeCall(model: Model, caller: Caller, letter: Letter): void {
  requireAccess(model, caller, letter)
}

/** The document an item call receives: readable by the caller and, for u and d methods, within that letter's scope. */
export function authorizeCallItem(model: Model, caller: Caller, letter: Letter, id: string): Authorized<FindQuery> {
  requireAccess(model, caller, letter)
  const scope = letter === 'u' || letter === 'd' ? ownerCondition(accessTo(model, caller, letter), caller) : {}
  const filter = authorized(allOf({ _id: id }, readScope(model, caller), scope))
  return authorized({ filter, sort: [], limit: 1, skip: 0, count: false, populate: [] })
}
