// Authorizes a delete (DELETE /api/{model}/{id}, with JXP's _permaDelete and
// _cascade): the one document the caller may delete (deleted ones too when it is
// removed for good) and, for every link into this model, the documents linking to it
// (live ones, unless a permanent cascade removes them all) and, of those, the ones the
// caller may not delete: a cascade never reaches documents the caller could not delete itself.
import type { Caller } from '../../auth/caller.ts'
import type { DeletePlan, DeleteReferrer } from '../../storage/engine.ts'
import type { Model } from '../../models/model-definition.ts'
import type { ModelRegistry } from '../../models/model-registry.ts'
import type { Filter } from '../../query/types.ts'
import { accessTo } from '../access.ts'
import { authorized, type Authorized } from '../authorized.ts'
import { allOf, writeScope } from '../row-scope.ts'

export interface DeleteOptions {
  /** Remove for good (JXP's _permaDelete=1) instead of marking deleted. */
  permanent: boolean
  /** Delete the documents that link to it too (JXP's _cascade=1) instead of refusing with 409. */
  cascade: boolean
}

const NOTHING: Filter = { _id: { $in: [] } }

/** Of a model's documents, those the caller may not delete. */
function undeletable(model: Model, caller: Caller): Filter {
  switch (accessTo(model, caller, 'd')) {
    case 'any':
      return NOTHING
    case 'own':
      return { _owner_id: { $ne: caller.userId } }
    case 'none':
      return {}
  }
}

/** Every link field of every model that points at `target`. */
function linksInto(registry: ModelRegistry, target: Model): Array<{ model: Model; field: string }> {
  return registry
    .all()
    .flatMap(model =>
      model.links.filter(link => link.target === target.name).map(link => ({ model, field: link.field }))
    )
}

function referrer(
  caller: Caller,
  target: Model,
  id: string,
  link: { model: Model; field: string },
  options: DeleteOptions
): DeleteReferrer {
  const { model, field } = link
  const live = options.permanent && options.cascade ? {} : { _deleted: false }
  const linking = allOf({ [field]: id }, live, model.name === target.name ? { _id: { $ne: id } } : {})
  return { model, field, linking, blocked: allOf(linking, undeletable(model, caller)) }
}

/** The plan of deleting document `id` of `model` for `caller`; 401/403 when it may not delete any. */
export function authorizeDeletion(
  registry: ModelRegistry,
  model: Model,
  caller: Caller,
  id: string,
  options: DeleteOptions
): Authorized<DeletePlan> {
  const target = allOf({ _id: id }, options.permanent ? {} : { _deleted: false }, writeScope(model, caller, ['d']))
  const referrers = linksInto(registry, model).map(link => referrer(caller, model, id, link, options))
  return authorized({ target, ...options, now: new Date().toISOString(), referrers })
}

/** The one document a planned delete may remove: its model's beforeDelete hook runs only when it is there. */
export function deletionTarget(plan: Authorized<DeletePlan>): Authorized<Filter> {
  return authorized(plan.target)
}
