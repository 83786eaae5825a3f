// The SQL expression a field of a declared scalar kind is compared, sorted and indexed on.
// The filter and sort compilers and the DDL all take it from here, so indexes match queries.
//
//   kind string, date              -> (doc->'a'->>'b') COLLATE "C"   text, byte order = MongoDB's
//   kind number, integer, boolean  -> NULLIF(doc->'a'->'b', 'null'::jsonb)   jsonb order
// Both are SQL NULL for a missing field and for JSON null, which MongoDB treats alike.
// A declared kind is trusted (every write is validated against the schema), so these forms carry
// no jsonb_typeof test: such a test adds nothing for valid data, and its default selectivity makes
// the planner misjudge how many rows a filter keeps (and choose a sort over an index walk).
import type { FieldKind } from '../../query/types.ts'
import { quoteLiteral } from '../sql-text.ts'
import { isIndexSegment, parseFieldPath } from '../../validation/field-path.ts'

type ScalarJsonType = 'string' | 'number' | 'boolean'

/** How a field of a scalar kind is compared: `expr` is index-served. */
export interface ScalarField {
  expr: string
  jsonType: ScalarJsonType
  /** True when `expr` is text (bind values with params.add), false when jsonb (params.addJson). */
  isText: boolean
  /** The field as text without collation (for regular expressions), or the jsonb value. */
  raw: string
}

const KIND_TYPES: Partial<Record<FieldKind, ScalarJsonType>> = {
  string: 'string',
  date: 'string',
  number: 'number',
  integer: 'number',
  boolean: 'boolean'
}

/** SQL for the value at a path: doc->'a'->'b', array indexes as integers, the last step ->> when asText. */
export function valueExpr(doc: string, segs: string[], asText = false): string {
  return segs.reduce((expr, seg, i) => {
    const arrow = asText && i === segs.length - 1 ? '->>' : '->'
    return `${expr}${arrow}${isIndexSegment(seg) ? seg : quoteLiteral(seg)}`
  }, doc)
}

/**
 * The index-friendly form of a field whose schema declares a scalar kind, or undefined when the
 * general form is needed (no kind, a non-scalar kind, or an array index on the path).
 */
export function scalarField(doc: string, segs: string[], kind: FieldKind | undefined): ScalarField | undefined {
  const jsonType = kind === undefined ? undefined : KIND_TYPES[kind]
  if (jsonType === undefined || segs.some(isIndexSegment)) return undefined
  const json = valueExpr(doc, segs)
  const isText = jsonType === 'string'
  const raw = isText ? valueExpr(doc, segs, true) : json
  const expr = isText ? `(${raw}) COLLATE "C"` : `NULLIF(${json}, 'null'::jsonb)`
  return { expr, jsonType, isText, raw }
}

/**
 * The expression to index `path` on, for a model's DDL: `CREATE INDEX ... ((<expr>) NULLS FIRST)`.
 * NULLS FIRST lets one index serve both sort directions (missing sorts first ascending, last
 * descending). Kinds without a scalar form get the plain jsonb value, which no compiled filter uses.
 */
export function indexExpression(doc: string, path: string, kind: FieldKind | undefined): string {
  const segs = parseFieldPath(path)
  return scalarField(doc, segs, kind)?.expr ?? valueExpr(doc, segs)
}
