// Answers "what kind of value does this field path hold?" from a model's schema,
// so that compilers can choose index-friendly SQL and parsers can coerce values.
import type { FieldKind, FieldKindLookup } from '../query/types.ts'
import type { FieldSpec, Model } from './model-definition.ts'
import { hiddenFields } from '../permissions/field-policy.ts'

const SYSTEM_KINDS: Record<string, FieldKind> = {
  _id: 'string',
  id: 'string',
  _deleted: 'boolean',
  _owner_id: 'string',
  createdAt: 'date',
  updatedAt: 'date',
  __v: 'integer',
  _updated_by_id: 'string'
}

/**
 * Kinds whose values have one scalar SQL form: the ones a covering index can hold
 * (src/compiler/ddl/covering-columns.ts).
 */
export const COVERABLE_KINDS: ReadonlySet<FieldKind> = new Set(['string', 'date', 'number', 'integer', 'boolean'])

/**
 * The longest string a covering index may include, in characters (maxLength), all included
 * strings of one index together: a btree entry holds at most 2,704 bytes (4 per character at worst).
 */
export const MAX_INCLUDED_TEXT = 500

/** Why a path cannot be in a covering index, or undefined when it can. */
export function uncoverableReason(model: Model, path: string): string | undefined {
  if (hiddenFields(model).includes(path)) return 'is a password field'
  const kind = fieldKindLookup(model)(path)
  return kind !== undefined && COVERABLE_KINDS.has(kind)
    ? undefined
    : 'is not a declared string, date, number, integer or boolean field'
}

/**
 * The characters an included path may hold, when it is a string field of the model's own (system fields have a fixed
 * size).
 */
export function includedTextLength(model: Model, path: string): number | undefined {
  const spec = fieldSpecAt(model, path)
  return spec?.type === 'string' ? (spec.maxLength ?? Infinity) : undefined
}

/** The kind of a declared field; a mixed one holds any value, as a field the model does not declare. */
function kindOfSpec(spec: FieldSpec): FieldKind | undefined {
  switch (spec.type) {
    case 'password':
    case 'id':
      return 'string'
    case 'mixed':
      return undefined
    default:
      return spec.type
  }
}

/** Finds the spec of a dotted path; undefined when it crosses an array or an unknown field. */
export function fieldSpecAt(model: Model, path: string): FieldSpec | undefined {
  const [first, ...rest] = path.split('.')
  let spec: FieldSpec | undefined = Object.hasOwn(model.fields, first) ? model.fields[first] : undefined
  for (const seg of rest) {
    if (spec?.type !== 'object' || !spec.properties || !Object.hasOwn(spec.properties, seg)) return undefined
    spec = spec.properties[seg]
  }
  return spec
}

export function fieldKindLookup(model: Model): FieldKindLookup {
  return (path: string) => {
    if (Object.hasOwn(SYSTEM_KINDS, path)) return SYSTEM_KINDS[path]
    const spec = fieldSpecAt(model, path)
    return spec ? kindOfSpec(spec) : undefined
  }
}
