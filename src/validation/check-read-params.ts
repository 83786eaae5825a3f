// The engine-neutral check of a read's other parameters: the sort ([path, 1 | -1]
// terms), the projection (field paths) and full-text search: limits, valid paths,
// no sort on a hidden field, and search only where a full-text index exists.
import { QuireError } from '../errors.ts'
import type { Model } from '../models/model-definition.ts'
import type { Sort } from '../query/types.ts'
import { parseFieldPath } from './field-path.ts'
import { LIMITS } from './limits.ts'

/** The sort, checked; `hidden` names the fields (password hashes) nothing may be sorted on. */
export function checkSort(sort: Sort, hidden: readonly string[]): Sort {
  if (sort.length > LIMITS.sortTerms)
    throw new QuireError('QUERY_TOO_COMPLEX', `A sort may have at most ${LIMITS.sortTerms} fields`)
  for (const [path, direction] of sort) {
    const [first] = parseFieldPath(path)
    if (hidden.includes(first))
      throw new QuireError('INVALID_FIELD', `${first} cannot be used in a query: it holds a password hash`)
    if (direction !== 1 && direction !== -1)
      throw new QuireError('INVALID_QUERY', `Sort direction of ${path.slice(0, 64)} must be 1 or -1`)
  }
  return sort
}

/** The projection's paths, checked (hidden fields are simply never returned: the engines leave them out). */
export function checkFields(fields: string[] | undefined): string[] | undefined {
  if (fields === undefined) return undefined
  if (fields.length > LIMITS.projectionFields)
    throw new QuireError('QUERY_TOO_COMPLEX', `At most ${LIMITS.projectionFields} fields may be selected`)
  for (const path of fields) parseFieldPath(path)
  return fields
}

/** The search text, when the model has a full-text index to search (NO_FULLTEXT_INDEX otherwise). */
export function checkSearch(model: Model, search: string | undefined): string | undefined {
  if (search !== undefined && !model.fulltext)
    throw new QuireError('NO_FULLTEXT_INDEX', `Model ${model.name} has no full-text index: search needs one`)
  return search
}
