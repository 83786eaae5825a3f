// The field policy: which fields never leave the database and are never matched,
// sorted on or named in a pipeline. Today these are the password fields (bcrypt
// hashes; model files may declare them only at the top level): a filter on one
// (e.g. $regex on a growing prefix) would let a reader recover a hash.
import type { Model } from '../models/model-definition.ts'
import type { ModelRegistry } from '../models/model-registry.ts'

/** Top-level fields of `model` that no read returns and no query may name. */
export function hiddenFields(model: Model): string[] {
  return model.passwordFields
}

/** Every hidden field name of every model: no pipeline may name one, whatever model its documents came from. */
export function hiddenNames(registry: ModelRegistry): ReadonlySet<string> {
  return new Set(registry.all().flatMap(hiddenFields))
}

/** A copy of `value` in which no object, at any depth, keeps a key in `hidden` (results of model methods). */
export function withoutHiddenFields(value: unknown, hidden: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map(item => withoutHiddenFields(item, hidden))
  if (value === null || typeof value !== 'object' || value instanceof Date) return value
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !hidden.has(key))
      .map(([key, item]) => [key, withoutHiddenFields(item, hidden)])
  )
}
