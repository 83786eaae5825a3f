// Compiles a MongoDB sort spec into an ORDER BY list (without the keyword) in MongoDB's order
// across types, ending with the id column so that equal keys still page deterministically. The id
// follows the last key's direction, so an index on (key, _id) read backwards serves `-key` too.
import { QuireError } from '../../errors.ts'
import type { Sort } from '../../query/types.ts'
import type { FilterContext } from '../filter/compile-filter.ts'
import { scalarField, valueExpr } from '../filter/index-expression.ts'
import { fieldPath, jsonpathLiteral } from '../json-path.ts'
import { parseFieldPath } from '../../validation/field-path.ts'
import { LIMITS } from '../../validation/limits.ts'

export interface SortContext extends FilterContext {
  /** SQL expression of the id column, e.g. 't._id': the tiebreaker, and the key for `_id` itself. */
  idColumn: string
}

/**
 * ORDER BY terms for `sort`. A field of a declared scalar kind sorts on its index expression,
 * missing and null first (ascending). Any other field follows MongoDB: missing = null < numbers
 * < strings (byte order) < objects < arrays < booleans, an array sorting by its smallest element
 * ascending and its largest descending, and an empty array before null.
 */
export function compileSort(sort: Sort, ctx: SortContext): string {
  if (sort.length > LIMITS.sortTerms)
    throw new QuireError('QUERY_TOO_COMPLEX', `A sort may have at most ${LIMITS.sortTerms} fields`)
  const terms = sort.map(([path, direction]) => compileSortTerm(path, direction, ctx))
  if (!sort.some(([path]) => path === '_id')) terms.push(`${ctx.idColumn} ${sort.at(-1)?.[1] === -1 ? 'DESC' : 'ASC'}`)
  return terms.join(', ')
}

function compileSortTerm(path: string, direction: unknown, ctx: SortContext): string {
  if (direction !== 1 && direction !== -1)
    throw new QuireError('INVALID_QUERY', `Sort direction of ${path} must be 1 or -1`)
  const dir = direction === 1 ? 'ASC' : 'DESC'
  if (path === '_id') return `${ctx.idColumn} ${dir}`
  const segs = parseFieldPath(path)
  const scalar = scalarField(ctx.doc, segs, ctx.kindOf?.(path))
  if (scalar) return `${scalar.expr} ${dir} NULLS ${direction === 1 ? 'FIRST' : 'LAST'}`
  const emptyOrMissing = `CASE WHEN ${ctx.doc} @? ${jsonpathLiteral(fieldPath(segs))} THEN 0 ELSE 1 END`
  return (
    `(SELECT ${typeOrderKey('k.v', emptyOrMissing)} FROM (SELECT ${sortValue(ctx.doc, segs, dir)} AS v) AS ` +
    `k) ${dir}`
  )
}

/**
 * The value a document sorts by: the field's value, or its smallest/largest element or value reached through arrays.
 */
function sortValue(doc: string, segs: string[], dir: string): string {
  const value = valueExpr(doc, segs)
  const candidates = jsonpathLiteral(`${fieldPath(segs)}[*]`)
  const pick =
    `(SELECT s.v FROM (SELECT jsonb_path_query(${doc}, ${candidates}) AS v) AS s ORDER ` +
    `BY ${typeOrderKey('s.v', '1')} ${dir} LIMIT 1)`
  return (
    `CASE WHEN jsonb_typeof(${value}) IN ('null', 'number', 'string', 'object', 'boolean') THEN ${value} ` +
    `ELSE ${pick} END`
  )
}

/**
 * One row value ordering jsonb values by MongoDB's type order, then within the type: strings in
 * byte order (the row keeps the C collation), numbers, booleans and documents in jsonb order.
 */
function typeOrderKey(value: string, missingRank: string): string {
  const rank =
    `CASE jsonb_typeof(${value}) WHEN 'null' THEN 1 WHEN 'number' THEN 2 WHEN 'string' THEN 3 ` +
    `WHEN 'object' THEN 4 WHEN 'array' THEN 5 WHEN 'boolean' THEN 6 ELSE ${missingRank} END`
  const text = `(CASE WHEN jsonb_typeof(${value}) = 'string' THEN ${value} #>> '{}' END) COLLATE "C"`
  return `ROW(${rank}, ${text}, NULLIF(${value}, 'null'::jsonb))`
}
