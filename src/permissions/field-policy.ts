// The field policy: which fields never leave the database and are never matched,
// sorted on or named in a pipeline. Today these are the password fields (bcrypt
// hashes; model files may declare them only at the top level): a filter on one
// (e.g. $regex on a growing prefix) would let a reader recover a hash.
import type { Model } from '../models/model-definition.ts'
import type { ModelRegistry } from '../models/model-registry.ts'

/** Top-level fields of `model` that no read returns and no query may name. */
export function hiddenFields (model: Model): string[] {
  return model.passwordFields
}

/** Every hidden field name of every model: no pipeline may name one, whatever model its documents came from. */
export function hiddenNames (registry: ModelRegistry): ReadonlySet<string> {
  return new Set(registry.all().flatMap(hiddenFields))
}
