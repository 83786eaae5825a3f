// Compiles a MongoDB update document ($set, $unset, $inc, $push, $pull,
// $addToSet) into one jsonb expression over the stored document.
import type { SqlParams } from './sql-params.ts'
import { quoteLiteral } from './quote.ts'
import { parseFieldPath } from '../validation/field-path.ts'
import { QuireError } from '../errors.ts'

export const UPDATE_OPERATORS = ['$set', '$unset', '$inc', '$push', '$pull', '$addToSet'] as const
const MAX_UPDATE_FIELDS = 100

type Operator = typeof UPDATE_OPERATORS[number]
type Apply = (doc: string, path: string[], value: unknown, params: SqlParams) => string

function pathLiteral (path: string[]): string {
  return quoteLiteral(`{${path.join(',')}}`)
}

/** Makes sure every parent object of `path` exists, as MongoDB creates them on $set. */
function withParents (doc: string, path: string[]): string {
  let expr = doc
  for (let i = 1; i < path.length; i++) {
    const parent = pathLiteral(path.slice(0, i))
    expr = `jsonb_set(${expr}, ${parent}, coalesce(${expr} #> ${parent}, '{}'::jsonb), true)`
  }
  return expr
}

function setValue (doc: string, path: string[], valueSql: string): string {
  return `jsonb_set(${withParents(doc, path)}, ${pathLiteral(path)}, ${valueSql}, true)`
}

function arrayAt (doc: string, path: string[]): string {
  const current = `${doc} #> ${pathLiteral(path)}`
  return `(CASE WHEN ${current} IS NULL OR ${current} = 'null'::jsonb THEN '[]'::jsonb WHEN jsonb_typeof(${current}) = 'array' THEN ${current} END)`
}

function eachValues (value: unknown): unknown[] {
  if (value && typeof value === 'object' && !Array.isArray(value) && '$each' in value) {
    const each = (value as { $each: unknown }).$each
    if (!Array.isArray(each)) throw new QuireError('INVALID_QUERY', '$each needs an array')
    return each
  }
  return [value]
}

const APPLY: Record<Operator, Apply> = {
  $set: (doc, path, value, params) => setValue(doc, path, params.addJson(value)),
  $unset: (doc, path) => `(${doc} #- ${pathLiteral(path)})`,
  $inc: (doc, path, value, params) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) throw new QuireError('INVALID_QUERY', '$inc needs a number')
    const current = `${doc} #> ${pathLiteral(path)}`
    const sum = `to_jsonb(CASE WHEN ${current} IS NULL THEN 0 WHEN jsonb_typeof(${current}) = 'number' THEN (${current})::numeric END + ${params.add(value)}::numeric)`
    return setValue(doc, path, sum)
  },
  $push: (doc, path, value, params) => setValue(doc, path, `${arrayAt(doc, path)} || ${params.addJson(eachValues(value))}`),
  $addToSet: (doc, path, value, params) => {
    const additions = params.addJson(eachValues(value))
    const merged = `(SELECT coalesce(jsonb_agg(e ORDER BY o), '[]'::jsonb) FROM (SELECT DISTINCT ON (e) e, o FROM jsonb_array_elements(${arrayAt(doc, path)} || ${additions}) WITH ORDINALITY x(e, o) ORDER BY e, o) d)`
    return setValue(doc, path, merged)
  },
  $pull: (doc, path, value, params) => {
    const removed = value && typeof value === 'object' && !Array.isArray(value) && '$in' in value
      ? params.addJson((value as { $in: unknown }).$in)
      : params.addJson([value])
    const kept = `(SELECT coalesce(jsonb_agg(e ORDER BY o), '[]'::jsonb) FROM jsonb_array_elements(${arrayAt(doc, path)}) WITH ORDINALITY x(e, o) WHERE NOT (${removed} @> jsonb_build_array(e)))`
    return setValue(doc, path, kept)
  }
}

/** Checks an update document's shape and returns its operators and fields. */
export function checkUpdate (update: unknown, forbidden: (path: string) => boolean): Array<[Operator, string, unknown]> {
  if (!update || typeof update !== 'object' || Array.isArray(update)) throw new QuireError('INVALID_QUERY', 'An update must be an object of update operators')
  const terms: Array<[Operator, string, unknown]> = []
  for (const [op, fields] of Object.entries(update)) {
    if (!(UPDATE_OPERATORS as readonly string[]).includes(op)) throw new QuireError('UNSUPPORTED_OPERATOR', `Unsupported update operator: ${op.slice(0, 40)}`)
    if (!fields || typeof fields !== 'object' || Array.isArray(fields)) throw new QuireError('INVALID_QUERY', `${op} needs an object of fields`)
    for (const [path, value] of Object.entries(fields)) {
      parseFieldPath(path)
      if (forbidden(path)) throw new QuireError('INVALID_QUERY', `${path} cannot be changed by an update`)
      terms.push([op as Operator, path, value])
    }
  }
  if (terms.length === 0) throw new QuireError('INVALID_QUERY', 'The update changes nothing')
  if (terms.length > MAX_UPDATE_FIELDS) throw new QuireError('QUERY_TOO_COMPLEX', `At most ${MAX_UPDATE_FIELDS} fields in one update`)
  return terms
}

/**
 * The updated document as a jsonb expression over `doc` (an SQL jsonb expression). Each term
 * is applied in its own LATERAL step on the previous step's alias, so the SQL grows linearly.
 */
export function compileUpdate (terms: Array<[Operator, string, unknown]>, doc: string, params: SqlParams): string {
  const steps = terms.map(([op, path, value], i) =>
    `CROSS JOIN LATERAL (SELECT ${APPLY[op](`u${i}.d`, parseFieldPath(path), value, params)} AS d) u${i + 1}`)
  return `(SELECT u${terms.length}.d FROM (SELECT ${doc} AS d) u0 ${steps.join(' ')})`
}
