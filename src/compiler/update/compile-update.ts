// Compiles the terms of a checked MongoDB update document ($set, $unset, $inc, $push,
// $pull, $addToSet; see src/validation/check-update.ts) into one jsonb expression over
// the stored document.
import { type SqlParams, quoteLiteral } from '../sql-text.ts'
import { parseFieldPath } from '../../validation/field-path.ts'
import type { UpdateOperator as Operator, UpdateTerms } from '../../validation/check-update.ts'
type Apply = (doc: string, path: string[], value: unknown, params: SqlParams) => string

function pathLiteral(path: string[]): string {
  return quoteLiteral(`{${path.join(',')}}`)
}

/** Makes sure every parent object of `path` exists, as MongoDB creates them on $set. */
function withParents(doc: string, path: string[]): string {
  let expr = doc
  for (let i = 1; i < path.length; i++) {
    const parent = pathLiteral(path.slice(0, i))
    expr = `jsonb_set(${expr}, ${parent}, coalesce(${expr} #> ${parent}, '{}'::jsonb), true)`
  }
  return expr
}

function setValue(doc: string, path: string[], valueSql: string): string {
  return `jsonb_set(${withParents(doc, path)}, ${pathLiteral(path)}, ${valueSql}, true)`
}

function arrayAt(doc: string, path: string[]): string {
  const current = `${doc} #> ${pathLiteral(path)}`
  return (
    `(CASE WHEN ${current} IS NULL OR ${current} = 'null'::jsonb THEN '[]'::jsonb WHEN ` +
    `jsonb_typeof(${current}) = 'array' THEN ${current} END)`
  )
}

/** The values a checked $push/$addToSet operand adds. */
function eachValues(value: unknown): unknown[] {
  return value && typeof value === 'object' && !Array.isArray(value) && '$each' in value
    ? (value as { $each: unknown[] }).$each
    : [value]
}

const APPLY: Record<Operator, Apply> = {
  $set: (doc, path, value, params) => setValue(doc, path, params.addJson(value)),
  $unset: (doc, path) => `(${doc} #- ${pathLiteral(path)})`,
  $inc: (doc, path, value, params) => {
    const current = `${doc} #> ${pathLiteral(path)}`
    const sum =
      `to_jsonb(CASE WHEN ${current} IS NULL THEN 0 WHEN jsonb_typeof(${current}) = 'number' THEN ` +
      `(${current})::numeric END + ${params.add(value as number)}::numeric)`
    return setValue(doc, path, sum)
  },
  $push: (doc, path, value, params) =>
    setValue(doc, path, `${arrayAt(doc, path)} || ${params.addJson(eachValues(value))}`),
  $addToSet: (doc, path, value, params) => {
    const additions = params.addJson(eachValues(value))
    const merged =
      `(SELECT coalesce(jsonb_agg(e ORDER BY o), '[]'::jsonb) FROM (SELECT DISTINCT ON (e) e, o FROM ` +
      `jsonb_array_elements(${arrayAt(doc, path)} || ${additions}) WITH ORDINALITY x(e, o) ORDER BY e, o) d)`
    return setValue(doc, path, merged)
  },
  $pull: (doc, path, value, params) => {
    const removed =
      value && typeof value === 'object' && !Array.isArray(value) && '$in' in value
        ? params.addJson((value as { $in: unknown }).$in)
        : params.addJson([value])
    const kept =
      `(SELECT coalesce(jsonb_agg(e ORDER BY o), '[]'::jsonb) FROM ` +
      `jsonb_array_elements(${arrayAt(doc, path)}) WITH ORDINALITY x(e, o) WHERE NOT (${removed} @> ` +
      `jsonb_build_array(e)))`
    return setValue(doc, path, kept)
  }
}

/**
 * The updated document as a jsonb expression over `doc` (an SQL jsonb expression). Each term
 * is applied in its own LATERAL step on the previous step's alias, so the SQL grows linearly.
 */
export function compileUpdate(terms: UpdateTerms, doc: string, params: SqlParams): string {
  const steps = terms.map(
    ([op, path, value], i) =>
      `CROSS JOIN LATERAL (SELECT ${APPLY[op](`u${i}.d`, parseFieldPath(path), value, params)} AS d) u${i + 1}`
  )
  return `(SELECT u${terms.length}.d FROM (SELECT ${doc} AS d) u0 ${steps.join(' ')})`
}
