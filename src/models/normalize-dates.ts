// Normalizes date fields to ISO 8601 UTC with milliseconds, so they sort and
// compare chronologically as text. Numbers are Unix time (seconds below 1e11,
// milliseconds above); anything unparseable is left for the validator to reject.
import type { FieldSpec } from './model-definition.ts'

const MS_THRESHOLD = 1e11

/** ISO string for a date given as ISO text, Unix seconds or milliseconds; undefined if invalid. */
export function toIsoDate(value: unknown): string | undefined {
  let date: Date | undefined
  if (typeof value === 'number' && Number.isFinite(value))
    date = new Date(Math.abs(value) < MS_THRESHOLD ? value * 1000 : value)
  else if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return toIsoDate(Number(value))
  else if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value)) date = new Date(value)
  else if (value instanceof Date) date = value
  if (!date || Number.isNaN(date.getTime())) return undefined
  return date.toISOString()
}

function normalizeValue(spec: FieldSpec, value: unknown): unknown {
  if (spec.type === 'date') return toIsoDate(value) ?? value
  if (spec.type === 'array' && spec.items && Array.isArray(value)) return value.map(v => normalizeValue(spec.items!, v))
  if (spec.type === 'object' && spec.properties && value && typeof value === 'object' && !Array.isArray(value)) {
    return normalizeDates(spec.properties, value as Record<string, unknown>)
  }
  return value
}

const datedSchemas = new WeakMap<Record<string, FieldSpec>, boolean>()

function specHasDates(spec: FieldSpec): boolean {
  return (
    spec.type === 'date' ||
    (spec.items !== undefined && specHasDates(spec.items)) ||
    (spec.properties !== undefined && hasDates(spec.properties))
  )
}

/** Whether the schema has a date field at any depth (most have none: their documents are only copied). */
function hasDates(fields: Record<string, FieldSpec>): boolean {
  let dated = datedSchemas.get(fields)
  if (dated === undefined) datedSchemas.set(fields, (dated = Object.values(fields).some(specHasDates)))
  return dated
}

/** A copy of `doc` with every date field (at any depth the schema describes) normalized. */
export function normalizeDates(
  fields: Record<string, FieldSpec>,
  doc: Record<string, unknown>
): Record<string, unknown> {
  if (!hasDates(fields)) return { ...doc }
  const out: Record<string, unknown> = { ...doc }
  for (const [name, value] of Object.entries(doc)) {
    const spec = fields[name]
    if (spec) out[name] = normalizeValue(spec, value)
  }
  return out
}
