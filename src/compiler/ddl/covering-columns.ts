// Covering indexes for aggregations. A declared index with `include` (models/*.json:
// {"fields": ["foo"], "include": ["yack.s", "yack.n"]}) makes the SQL engines keep its fields,
// the soft-delete flag and the included fields as stored generated columns, indexed together
// over the live documents, so that a $match on them followed by a $group over them reads that
// index alone (an index-only scan) instead of every matching 1 KB document
// (src/compiler/pipeline/compile-covered-group.ts).
// A column holds exactly the expression the compilers read the field with, so a statement may
// name the column instead of the expression and mean the same value.
import type { Model, ModelIndex } from '../../models/model-definition.ts'
import type { FieldKind } from '../../query/types.ts'
import { COVERABLE_KINDS, fieldKindLookup } from '../../models/field-kinds.ts'
import { parseFieldPath } from '../../validation/field-path.ts'
import { floatOf } from '../pipeline/jsonb-sql.ts'
import { scalarField, valueExpr } from '../filter/index-expression.ts'
import { quoteIdent } from '../sql-text.ts'
import { shortHash } from '../short-hash.ts'

/** Prefix of the generated columns of covering indexes (the full-text column's is `fts_`). */
export const COVERING_PREFIX = 'gc_'

/** A stored generated column: its name and its definition after the name. */
export interface GeneratedColumn {
  name: string
  sql: string
}

/** A field a covering index holds, as columns of the model's table. */
export interface CoveredField {
  /** The column of the field's compared value (what filters and group keys read). */
  value: string
  /** Whether `value` is jsonb (numbers, booleans) rather than text (strings, dates). */
  jsonb: boolean
  /** For numbers: the column of the value as float8, as $sum and $avg read it. */
  float?: string
  /** The field's declared kind. */
  kind: FieldKind
}

/** The compared value of a field whose kind is coverable, over `doc` (the filters' scalar form). */
function comparedValue(
  doc: string,
  path: string,
  kind: FieldKind | undefined
): { expr: string; jsonb: boolean } | undefined {
  const field =
    kind !== undefined && COVERABLE_KINDS.has(kind) ? scalarField(doc, parseFieldPath(path), kind) : undefined
  return field && { expr: field.expr, jsonb: !field.isText }
}

/** The fields a covering index keeps columns of: its own, the soft-delete flag (its predicate), the included ones. */
const coveredPaths = (index: ModelIndex): string[] => [...index.fields, '_deleted', ...(index.include ?? [])]

function columnOf(expr: string): string {
  return `${COVERING_PREFIX}${shortHash(expr)}`
}

interface CoveringColumn extends GeneratedColumn {
  path: string
  role: 'value' | 'float'
  /** Whether the column is jsonb (a value column of a number or boolean). */
  jsonb: boolean
}

/** The generated columns of one field (its compared value, and its float8 value for numbers). */
function fieldColumns(model: Model, path: string): CoveringColumn[] {
  const kind = fieldKindLookup(model)(path)
  const compared = comparedValue('doc', path, kind)
  if (!compared) return []
  const columns: CoveringColumn[] = [
    {
      path,
      role: 'value',
      jsonb: compared.jsonb,
      name: columnOf(compared.expr),
      sql: `${compared.jsonb ? 'jsonb' : 'text COLLATE "C"'} GENERATED ALWAYS AS (${compared.expr}) STORED`
    }
  ]
  if (kind === 'number' || kind === 'integer') {
    const float = floatOf(valueExpr('doc', parseFieldPath(path)))
    columns.push({
      path,
      role: 'float',
      jsonb: false,
      name: columnOf(float),
      sql: `float8 GENERATED ALWAYS AS (${float}) STORED`
    })
  }
  return columns
}

function uniqueByName<T extends { name: string }>(items: T[]): T[] {
  return [...new Map(items.map(item => [item.name, item])).values()]
}

const coveringIndexes = (model: Model): ModelIndex[] => model.indexes.filter(index => index.include !== undefined)

/** Every generated column the model's covering indexes need (none without `include`). */
function coveringColumnList(model: Model): CoveringColumn[] {
  const paths = coveringIndexes(model).flatMap(coveredPaths)
  return uniqueByName(paths.flatMap(path => fieldColumns(model, path)))
}

export function coveringColumns(model: Model): GeneratedColumn[] {
  return coveringColumnList(model).map(({ name, sql }) => ({ name, sql }))
}

const coveredByModel = new WeakMap<Model, ReadonlyMap<string, CoveredField>>()

/** The fields the model's covering indexes hold, by path (empty without `include`). */
export function coveredFields(model: Model): ReadonlyMap<string, CoveredField> {
  const known = coveredByModel.get(model)
  if (known) return known
  const kindOf = fieldKindLookup(model)
  const fields = new Map<string, CoveredField>()
  for (const column of coveringColumnList(model)) {
    const field = fields.get(column.path) ?? { value: '', jsonb: false, kind: kindOf(column.path) as FieldKind }
    if (column.role === 'float') field.float = column.name
    else Object.assign(field, { value: column.name, jsonb: column.jsonb })
    fields.set(column.path, field)
  }
  coveredByModel.set(model, fields)
  return fields
}

/**
 * The body of each covering index (`INDEX %NAME% ON ... WHERE ...`): the columns of the index's
 * fields, then of the included fields, all as keys, over live documents only. Within one value of
 * the fields, entries come in the order of the first included field, so a $group by it streams
 * (a GroupAggregate: no hashing, no sort). The soft-delete flag is the predicate, not a key: a
 * key is compared for every entry the scan reads (a jsonb comparison: half the scan's time),
 * a predicate once, when the planner proves that the statement asks for live documents only.
 */
export function coveringIndexBodies(model: Model, table: string): string[] {
  // `_deleted` is a boolean system field of every model: one column, its value.
  const [deleted] = fieldColumns(model, '_deleted')
  const predicate = ` WHERE ${quoteIdent(deleted.name)} = 'false'::jsonb`
  return coveringIndexes(model).map(index => {
    const columns = uniqueByName([...index.fields, ...(index.include ?? [])].flatMap(path => fieldColumns(model, path)))
    return `INDEX %NAME% ON ${quoteIdent(table)} (${columns.map(c => quoteIdent(c.name)).join(', ')})${predicate}`
  })
}

/**
 * `where` (SQL over `doc`, the model's table's document column) with every compared value of a
 * covered field read from its column instead; undefined when anything else still reads `doc`.
 */
export function readFromColumns(
  where: string,
  doc: string,
  alias: string,
  fields: ReadonlyMap<string, CoveredField>
): string | undefined {
  let sql = where
  for (const [path, field] of fields) {
    const compared = comparedValue(doc, path, field.kind)
    if (compared) sql = sql.split(compared.expr).join(`${alias}.${quoteIdent(field.value)}`)
  }
  return new RegExp(`\\b${doc.replace('.', '\\.')}\\b`).test(sql) ? undefined : sql
}
