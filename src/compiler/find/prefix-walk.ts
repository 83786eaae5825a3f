// A cheaper first try for a page in _id order whose filter the collection's GIN index serves
// (equality on a field without an index of its own). PostgreSQL has no statistics for such a
// filter (documents wider than 1 KB are left out of ANALYZE's sample), so it guesses that 1% of
// the documents match and, once VACUUM has cleaned the GIN index's pending list, reads every match
// from the index and sorts them, even when the page's rows lie among the first few hundred in _id
// order (the bench's `filter[shmack]=3`, 1 in 20 documents: 1,166 req/s and 895 us of database
// CPU per page, against 2,471 req/s and 252 us for the walk). The first try walks the first
// PREFIX_ROWS documents in _id order (a prepared statement: one plan for every value); when
// fewer than the page's rows match there, the engine runs the statement planned for the values.
import type { FindQuery } from '../../storage/engine.ts'

/** Pages deeper than this (skip + limit) go straight to the planned statement. */
const MAX_PAGE_END = 1000
/** Documents walked for each row the page needs, between the bounds below. */
const ROWS_WALKED_PER_ROW = 50
const MIN_PREFIX_ROWS = 500
const MAX_PREFIX_ROWS = 5000

/**
 * The FROM source (aliased `t`, with `columns` of the table) of the first try: the first
 * documents in `order` that match `where` (`scale` times as many for a sparser condition);
 * undefined when the page is not in order of the _id column alone, or too deep.
 */
export function prefixWalkSource(
  table: string,
  columns: string,
  where: string,
  order: string,
  query: FindQuery,
  scale = 1
): string | undefined {
  const end = query.skip + query.limit
  if (!/^t\._id (ASC|DESC)$/.test(order) || query.limit <= 0 || end > MAX_PAGE_END) return undefined
  const prefix = scale * Math.min(Math.max(end * ROWS_WALKED_PER_ROW, MIN_PREFIX_ROWS), MAX_PREFIX_ROWS)
  return `(SELECT ${columns} FROM ${table} t ORDER BY ${order} LIMIT ${prefix}) t WHERE ${where}`
}
