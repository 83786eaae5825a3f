// The `count` parameter of a list read: how its answer's `count` is made (after PostgREST's
// `Prefer: count=exact|planned|estimated`). Unset, or JXP's flag values (true, 1, false, 0):
// the contract's default, exact while the collection holds at most EXACT_COUNT_LIMIT documents
// and -1 above. `exact`: counted whatever the size (O(matching rows), within
// STATEMENT_TIMEOUT_MS); `planned`: the query planner's estimate (no scan; labelled);
// `estimated`: exact up to the limit, the planner's estimate above it (labelled).
import { QuireError } from '../errors.ts'

export const COUNT_MODES = ['exact', 'planned', 'estimated'] as const

export type CountMode = (typeof COUNT_MODES)[number]

const FLAGS = new Set(['true', 'false', '1', '0', ''])

/** The count mode a `count` parameter asks for; undefined for the default. */
export function parseCountMode(text: string | string[] | undefined): CountMode | undefined {
  if (text === undefined || (typeof text === 'string' && FLAGS.has(text))) return undefined
  if (typeof text === 'string' && (COUNT_MODES as readonly string[]).includes(text)) return text as CountMode
  throw new QuireError(
    'BAD_REQUEST',
    `count must be exact, planned or estimated (or left out: exact up to EXACT_COUNT_LIMIT documents, -1 above)`
  )
}
