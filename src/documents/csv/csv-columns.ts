// The columns and cells of a CSV export (GET /csv/{model}). Columns come from the
// model's schema, not from the rows, so the header can be written before the first
// row of a streamed export: `_id`, the fields (an object with declared properties
// flattened to dotted columns, `yack.s`, `yack.n`), the system fields; or `_id` and
// the `fields` asked for. A populated link adds its target's columns under its name
// (`link.name`), a list of links one JSON column. Password fields never get a column.
// Cells: text as it is, numbers, true/false, arrays and other objects as JSON,
// missing and null empty. Models with additionalFields get an `_other` JSON column.
import type { Doc, PopulateSpec } from '../../storage/engine.ts'
import type { FieldSpec, Model } from '../../models/model-definition.ts'
import { fieldSpecAt } from '../../models/field-kinds.ts'
import { hiddenFields } from '../../permissions/field-policy.ts'
import { SYSTEM_FIELDS } from '../../models/model-definition.ts'

export interface CsvColumn {
  header: string
  /** Where its cell's value is; undefined for the `_other` column. */
  path?: string[]
}

/** The system fields after the model's own, in SYSTEM_FIELDS's order (_id leads). */
const TRAILING_SYSTEM = SYSTEM_FIELDS.filter(f => f !== '_id' && f !== 'id')

function column(path: string[]): CsvColumn {
  return { header: path.join('.'), path }
}

/** Columns of a field: one, or one per declared property of an object (recursively). */
function fieldColumns(path: string[], spec: FieldSpec | undefined): CsvColumn[] {
  if (spec?.type === 'password') return []
  if (spec?.type !== 'object' || !spec.properties) return [column(path)]
  return Object.entries(spec.properties).flatMap(([name, inner]) => fieldColumns([...path, name], inner))
}

function modelColumns(model: Model, wanted: string[] | undefined, prefix: string[] = []): CsvColumn[] {
  const hidden = hiddenFields(model)
  const names = (wanted ?? Object.keys(model.fields)).filter(
    name => !['_id', 'id', ...hidden].includes(name.split('.')[0])
  )
  const fields = names.flatMap(name => fieldColumns([...prefix, ...name.split('.')], fieldSpecAt(model, name)))
  return [column([...prefix, '_id']), ...fields]
}

/**
 * The export's columns: the model's (or `fields`), populated links, `score` when searching, `_other` when undeclared
 * fields may exist.
 */
export function csvColumns(
  model: Model,
  fields: string[] | undefined,
  populate: PopulateSpec[],
  searching: boolean
): CsvColumn[] {
  const own = modelColumns(model, fields)
  const system = fields === undefined ? TRAILING_SYSTEM.map(name => column([name])) : []
  const links = populate.flatMap(spec =>
    spec.many ? [column([spec.as])] : modelColumns(spec.target, spec.fields, [spec.as])
  )
  const extra = [
    ...(searching ? [column(['score'])] : []),
    ...(model.additionalFields && fields === undefined ? [{ header: '_other' }] : [])
  ]
  return [...own, ...system, ...links, ...extra]
}

function valueAt(doc: Doc, path: string[]): unknown {
  let value: unknown = doc
  for (const key of path) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
    value = Object.hasOwn(value, key) ? (value as Doc)[key] : undefined
  }
  return value
}

function cell(value: unknown): unknown {
  if (value === undefined || value === null) return null
  return typeof value === 'object' ? JSON.stringify(value) : value
}

/** The top-level fields no column shows (a model with additionalFields), as JSON; empty when none. */
function otherFields(doc: Doc, columns: CsvColumn[]): string | null {
  const shown = new Set(columns.flatMap(c => (c.path ? [c.path[0]] : [])).concat('id'))
  const rest = Object.entries(doc).filter(([key]) => !shown.has(key))
  return rest.length ? JSON.stringify(Object.fromEntries(rest)) : null
}

/** One row's cells, in the columns' order. */
export function csvRow(doc: Doc, columns: CsvColumn[]): unknown[] {
  return columns.map(c => (c.path ? cell(valueAt(doc, c.path)) : otherFields(doc, columns)))
}
