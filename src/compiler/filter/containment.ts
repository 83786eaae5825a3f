// The forms of an equality that the collection's GIN index (jsonb_path_ops over the whole
// document, src/compiler/ddl/schema-ddl.ts) serves: containment (`doc @> {"a":{"b":v}}`) where the
// model declares the field's kind, a jsonpath (`doc @? '$."a" ? (@ == v)'`) everywhere else.
import type { Model } from '../../models/model-definition.ts'
import { fieldSpecAt } from '../../models/field-kinds.ts'
import { fieldPath, jsonpathString } from '../json-path.ts'
import { SYSTEM_FIELDS } from '../../models/model-definition.ts'

/**
 * How an equality on a path may use containment: 'value' when the schema declares a scalar kind
 * for it (the field holds that value), 'element' when it declares an array of scalars (the array
 * holds it); undefined when the general form is needed, or when a declared b-tree index leads
 * with the field (that index serves the scalar form, and reads a filtered page in order).
 */
export type Containment = 'value' | 'element'
export type ContainmentLookup = (path: string) => Containment | undefined

const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'date', 'id'])
/** System fields equality may use containment for (`_deleted` matches nearly every row: its own form). */
const SYSTEM_SCALARS = new Set<string>(SYSTEM_FIELDS.filter(f => f !== '_deleted'))

export function containmentLookup(model: Model): ContainmentLookup {
  const indexed = new Set(model.indexes.map(index => index.fields[0]))
  return path => {
    if (indexed.has(path)) return undefined
    if (SYSTEM_SCALARS.has(path)) return 'value'
    const spec = fieldSpecAt(model, path)
    if (spec === undefined) return undefined
    if (SCALAR_TYPES.has(spec.type)) return 'value'
    return spec.type === 'array' && spec.items !== undefined && SCALAR_TYPES.has(spec.items.type)
      ? 'element'
      : undefined
  }
}

/** The document `doc @>` tests for a declared field: {"a": {"b": v}}, or {"a": {"b": [v]}} for an array's element. */
export function containmentDocument(
  segs: string[],
  value: string | number | boolean,
  containment: Containment
): Record<string, unknown> {
  const leaf: unknown = containment === 'element' ? [value] : value
  return segs.reduceRight<Record<string, unknown>>((inner, seg) => ({ [seg]: inner }), leaf as Record<string, unknown>)
}

function jsonpathValue(value: string | number | boolean): string {
  return typeof value === 'string' ? jsonpathString(value) : String(value)
}

/** `a || b || ...` as a balanced tree: a long $in list must not nest a thousand levels deep. */
function balancedOr(terms: string[]): string {
  if (terms.length === 1) return terms[0]
  const half = Math.ceil(terms.length / 2)
  return `(${balancedOr(terms.slice(0, half))}) || (${balancedOr(terms.slice(half))})`
}

/**
 * A jsonpath that exists when a value of the field, or an element of an array value (one level, as
 * MongoDB), equals one of `values`. The values are literals in the path, which is bound as a
 * parameter: the GIN index extracts them (a jsonpath variable would hide them from it).
 * `untyped`: the field's kind is unknown, so nested arrays must not be unwrapped a second time.
 */
export function equalityPath(segs: string[], values: Array<string | number | boolean>, untyped: boolean): string {
  const equal = balancedOr(values.map(v => `@ == ${jsonpathValue(v)}`))
  const test = untyped ? `@.type() != "array" && (${equal})` : equal
  return `lax ${fieldPath(segs)} ? (${test})`
}
