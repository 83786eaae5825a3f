// Bodies from the routes' own TypeBox schemas (schemas/*.ts): each property
// valid, at its length bounds, one past them, of the wrong type, missing, or
// joined by properties the schema does not name.
import type { TSchema } from '@sinclair/typebox'
import type { Choice } from './random-choice.ts'
import { obj, type Json, type JsonObject } from './json-text.ts'

interface PropertySchema {
  type?: string
  minLength?: number
  maxLength?: number
}

/** A value for one property; `known` offers real values (e.g. an existing email) now and then. */
function propertyValue(c: Choice, schema: PropertySchema, known: string[]): Json {
  const max = schema.maxLength ?? 64
  return c.weighted<Json>([
    [3, () => (known.length ? c.pick(known) : c.string())],
    [4, () => c.string()],
    [1, () => c.pick(['x'.repeat(max), 'x'.repeat(max + 1), 'é'.repeat(max), ''])],
    [2, () => c.value()]
  ])
}

export function schemaBody(c: Choice, schema: TSchema, known: Record<string, string[]> = {}): JsonObject {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, PropertySchema>)
  const entries: Array<[string, Json]> = properties
    .filter(() => c.chance(0.9))
    .map(([name, spec]) => [name, propertyValue(c, spec, known[name] ?? [])])
  if (c.chance(0.15))
    entries.push([c.pick(['admin', 'constructor', '__proto__', '$set', 'extra', c.string()]), c.value()])
  return obj(entries)
}
