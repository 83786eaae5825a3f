// Documents for the fuzz, built from a model's field definitions: valid ones
// (every field kind, at its bounds, unicode included), and ones with a defect
// that the model must refuse (an unknown field, a value of the wrong type or
// out of bounds, a missing required field, a body that is not an object).
import type { FieldSpec, Model } from '../../src/models/model-definition.ts'
import type { Choice } from './random-choice.ts'
import { obj, type Json, type JsonObject } from './json-text.ts'

/** Ids the fuzz knows to exist, per model. */
export type KnownIds = Record<string, string[]>

/** Fields the service sets or ignores: never used as a defect. */
const SYSTEM_FIELDS = new Set(['_id', 'id', 'createdAt', 'updatedAt', '__v', '_deleted', '_owner_id'])
const ID_CHARS = '0123456789abcdef'
const WORD_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789-'

const hexId = (c: Choice): string => Array.from({ length: 24 }, () => c.pick([...ID_CHARS])).join('')

function validString(c: Choice, spec: FieldSpec, onPassword: (p: string) => void): string {
  if (spec.enum) return c.pick(spec.enum as string[])
  const min = spec.minLength ?? (spec.type === 'password' ? 1 : 0)
  const max = Math.min(spec.maxLength ?? 60, spec.type === 'password' ? 72 : 10_000)
  const length = c.chance(0.2) ? max : c.int(min, Math.min(max, 24))
  if (spec.type === 'password') {
    const password =
      `pw-${Array.from({ length: Math.max(9, length - 3) }, () => c.pick([...WORD_CHARS])).join('')}`.slice(
        0,
        Math.max(12, length)
      )
    onPassword(password)
    return password
  }
  if (spec.pattern || c.chance(0.3))
    return Array.from({ length: Math.max(min, length) }, () => c.pick([...WORD_CHARS])).join('')
  const text = Array.from({ length: 4 }, () => c.sometimesLong(70_000)).join('')
  return [...text].slice(0, max).join('').padEnd(min, 'x')
}

function validNumber(c: Choice, spec: FieldSpec): number {
  const min = spec.minimum ?? -1e9
  const max = spec.maximum ?? 1e9
  if (spec.type === 'integer')
    return c.chance(0.2) ? c.pick([min, max]) : c.int(Math.max(min, -1e6), Math.min(max, 1e6))
  return c.chance(0.2) ? c.pick([min, max, 0, -0.5, 1e-300]) : min + c.random() * (max - min)
}

function validDate(c: Choice): Json {
  const ms = Date.UTC(
    1970 + c.int(0, 100),
    c.int(0, 11),
    c.int(1, 28),
    c.int(0, 23),
    c.int(0, 59),
    c.int(0, 59),
    c.int(0, 999)
  )
  return c.pick([
    new Date(ms).toISOString(),
    new Date(ms).toISOString().replace('Z', '+02:00'),
    Math.floor(ms / 1000),
    ms
  ])
}

/** A value `spec` accepts. */
function validValue(c: Choice, spec: FieldSpec, ids: KnownIds, onPassword: (p: string) => void): Json {
  switch (spec.type) {
    case 'string':
    case 'password':
      return validString(c, spec, onPassword)
    case 'number':
    case 'integer':
      return validNumber(c, spec)
    case 'boolean':
      return c.chance(0.5)
    case 'date':
      return validDate(c)
    case 'id':
      return spec.link && ids[spec.link]?.length && c.chance(0.8) ? c.pick(ids[spec.link]) : hexId(c)
    case 'array':
      return Array.from({ length: c.int(0, 4) }, () => validValue(c, spec.items ?? { type: 'string' }, ids, onPassword))
    case 'object':
      return obj(
        Object.entries(spec.properties ?? {})
          .filter(() => c.chance(0.7))
          .map(([k, s]) => [k, validValue(c, s, ids, onPassword)])
      )
    case 'mixed':
      return c.pick(['any', 5, true, [1, 'a'], obj([['k', 'v']])])
  }
}

/**
 * A value `spec` refuses (JSON bodies are not coerced). Not null: it clears a field that is neither required nor a
 * password (as in JXP).
 */
function wrongValue(c: Choice, spec: FieldSpec): Json {
  const wrongType: Record<FieldSpec['type'], Json[]> = {
    string: [5, true, [], obj([])],
    password: [5, false, [], obj([]), 'p'.repeat(73)],
    number: ['5', true, [], obj([])],
    integer: ['5', 1.5, true],
    boolean: ['true', 1, []],
    date: ['not a date', '2024-13-45T99:99:99Z', true, obj([])],
    id: ['xyz', 'G'.repeat(24), 5, 'a'.repeat(25)],
    array: ['a', 5, obj([])],
    object: ['a', 5, [], true],
    mixed: [] // a mixed field takes any value
  }
  const outOfBounds: Json[] = [
    ...(spec.maxLength !== undefined ? ['x'.repeat(spec.maxLength + 1)] : []),
    ...(spec.minLength ? [''] : []),
    ...(spec.enum ? ['not-in-the-enum'] : []),
    ...(spec.pattern ? ['UPPER CASE!'] : []),
    ...(spec.maximum !== undefined ? [spec.maximum + 1] : []),
    ...(spec.minimum !== undefined ? [spec.minimum - 1] : [])
  ]
  return outOfBounds.length && c.chance(0.4) ? c.pick(outOfBounds) : c.pick(wrongType[spec.type])
}

export function validDocument(
  c: Choice,
  model: Model,
  ids: KnownIds,
  onPassword: (p: string) => void,
  partial = false
): JsonObject {
  const fields = Object.entries(model.fields).filter(([name]) =>
    model.required.includes(name) ? !partial || c.chance(0.5) : c.chance(partial ? 0.3 : 0.6)
  )
  if (fields.length === 0) fields.push(c.pick(Object.entries(model.fields).filter(([, s]) => s.type === 'string')))
  const clearable = (name: string, spec: FieldSpec): boolean =>
    !model.required.includes(name) && spec.type !== 'password'
  return obj(
    fields.map(([name, spec]) => [
      name,
      clearable(name, spec) && c.chance(0.05) ? null : validValue(c, spec, ids, onPassword)
    ])
  )
}

/** A body the model must refuse with a 400, whoever sends it. */
export function defectiveDocument(c: Choice, model: Model, ids: KnownIds, partial: boolean): Json {
  const base = validDocument(c, model, ids, () => {}, partial)
  const unknownKeys = [...c.pools.strings, 'constructor', 'prototype', '$set', 'a.b', 'foo bar'].filter(
    k => !(k in model.fields) && !SYSTEM_FIELDS.has(k) && k !== '__proto__'
  )
  return c.weighted<Json>([
    [4, () => obj([...base.entries, [c.pick(unknownKeys), c.value()]])],
    [
      4,
      () => {
        const [name, spec] = c.pick(Object.entries(model.fields))
        return obj([...base.entries.filter(([k]) => k !== name), [name, wrongValue(c, spec)]])
      }
    ],
    [1, () => obj([...base.entries, ['__proto__', obj([['admin', true]])]])],
    [1, () => c.pick<Json>([[], [base], 'text', 5, null, true])],
    [model.required.length && !partial ? 1 : 0, () => obj(base.entries.filter(([k]) => !model.required.includes(k)))]
  ])
}
