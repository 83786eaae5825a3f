// The rows of a page in _id order for a filter that the collection's GIN index serves (equality on
// a field without an index of its own). PostgreSQL has no statistics for such a filter (documents
// wider than 1 KB are left out of ANALYZE's sample), so it guesses that 1% of the documents match
// and, once VACUUM has cleaned the GIN index's pending list, reads every match from the index and
// sorts them, even when the page's rows lie among the first few hundred in _id order (the bench's
// `filter[shmack]=3`, 1 in 20 documents: 1,220 req/s and 865 us of database CPU per page against
// 2,400 req/s and 250 us for the walk). One statement tries both in turn: walk the first
// PREFIX_ROWS documents in _id order; only when fewer than the page's rows match there does the
// planner's own plan run (a rare value: a bounded extra cost of the walk, about 0.5 ms).
import type { FindQuery } from '../engines/engine.ts'

/** Pages deeper than this (skip + limit) keep the planner's plan. */
const MAX_PAGE_END = 1000
/** Documents walked for each row the page needs, between the bounds below. */
const ROWS_WALKED_PER_ROW = 50
const MIN_PREFIX_ROWS = 500
const MAX_PREFIX_ROWS = 5000

/**
 * The FROM source (aliased `t`, its rows already limited to skip + limit, in `order`) for a page
 * whose `order` is the _id column alone; undefined when the page is not one (then the caller
 * plans it as usual).
 */
export function prefixWalkSource (table: string, where: string, order: string, query: FindQuery): string | undefined {
  const end = query.skip + query.limit
  if (!/^t\._id (ASC|DESC)$/.test(order) || query.limit <= 0 || end > MAX_PAGE_END) return undefined
  const prefix = Math.min(Math.max(end * ROWS_WALKED_PER_ROW, MIN_PREFIX_ROWS), MAX_PREFIX_ROWS)
  const walk = `SELECT t.* FROM (SELECT * FROM ${table} t ORDER BY ${order} LIMIT ${prefix}) t WHERE ${where} ORDER BY ${order} LIMIT ${end}`
  const planned = `SELECT t.* FROM ${table} t WHERE ${where} ORDER BY ${order} LIMIT ${end}`
  return `(WITH walk AS MATERIALIZED (${walk}) ` +
    `SELECT * FROM walk WHERE (SELECT count(*) FROM walk) = ${end} ` +
    `UNION ALL SELECT * FROM (${planned}) p WHERE (SELECT count(*) FROM walk) < ${end}) t`
}
