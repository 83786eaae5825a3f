// Authorizes model discovery (GET /model, GET /model/{name}): a caller sees the
// models it holds any letter on (anonymous callers: those open to `all`), and
// nothing of the others.
import type { Caller } from '../../auth/caller.ts'
import type { Model } from '../../models/model-definition.ts'
import type { ModelRegistry } from '../../models/model-registry.ts'
import { QuireError } from '../../errors.ts'
import { accessTo, type Letter } from '../access.ts'

const LETTERS: Letter[] = ['c', 'r', 'u', 'd']

/** The letters the caller holds on the model (owner-only ones included). */
export function lettersHeld(model: Model, caller: Caller): Letter[] {
  return LETTERS.filter(letter => accessTo(model, caller, letter) !== 'none')
}

export function visibleModels(registry: ModelRegistry, caller: Caller): Model[] {
  return registry.all().filter(model => lettersHeld(model, caller).length > 0)
}

/** Throws 401 (anonymous) or 403 when the caller holds no letter on the model. */
export function requireVisible(model: Model, caller: Caller): void {
  if (lettersHeld(model, caller).length > 0) return
  throw caller.userId
    ? new QuireError('FORBIDDEN', `Not allowed to see the model ${model.name}`)
    : new QuireError('AUTH_REQUIRED', `Log in to see the model ${model.name}`)
}
