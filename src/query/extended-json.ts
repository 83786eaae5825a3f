// MongoDB extended JSON in client input: {"$oid": "..."} becomes the hex string,
// {"$date": ...} the normalized ISO 8601 UTC string that Quire stores for dates, and
// {"$numberInt"|"$numberLong"|"$numberDouble"|"$numberDecimal": "..."} a number.
import { QuireError } from '../errors.ts'

const OBJECT_ID = /^[0-9a-fA-F]{24}$/
const INTEGER_TEXT = /^-?\d{1,16}$/

/** Returns a copy of `value` with every {$oid} and {$date} wrapper replaced by its plain value. */
export function reviveExtendedJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reviveExtendedJson)
  if (value === null || typeof value !== 'object') return value
  const entries = Object.entries(value)
  if (entries.length === 1) {
    const [key, inner] = entries[0]
    if (key === '$oid') return reviveObjectId(inner)
    if (key === '$date') return reviveDate(inner)
    if (NUMBER_WRAPPERS.has(key)) return reviveNumber(key, inner)
  }
  return Object.fromEntries(entries.map(([k, v]) => [k, reviveExtendedJson(v)]))
}

function reviveObjectId(inner: unknown): string {
  if (typeof inner !== 'string' || !OBJECT_ID.test(inner)) {
    throw new QuireError('INVALID_BODY', 'Invalid extended JSON: $oid needs a 24-character hexadecimal string')
  }
  return inner.toLowerCase()
}

/**
 * mongoexport's canonical mode wraps numbers: {"$numberInt": "2"}, {"$numberLong": "..."}, {"$numberDouble": "1.5"}.
 */
const NUMBER_WRAPPERS = new Set(['$numberInt', '$numberLong', '$numberDouble', '$numberDecimal'])

function reviveNumber(key: string, inner: unknown): number {
  const value = typeof inner === 'string' ? Number(inner) : NaN
  if (typeof inner !== 'string' || inner.trim() === '' || !Number.isFinite(value)) {
    throw new QuireError('INVALID_BODY', `Invalid extended JSON: ${key} needs a finite number as a string`)
  }
  return value
}

function reviveDate(inner: unknown): string {
  let source: string | number | undefined
  if (typeof inner === 'string' || typeof inner === 'number') source = inner
  else if (inner !== null && typeof inner === 'object' && Object.keys(inner).length === 1) {
    const long = (inner as Record<string, unknown>).$numberLong
    if (typeof long === 'string' && INTEGER_TEXT.test(long)) source = Number(long)
  }
  const date = source === undefined ? undefined : new Date(source)
  if (date === undefined || Number.isNaN(date.getTime())) {
    throw new QuireError(
      'INVALID_BODY',
      'Invalid extended JSON: $date needs an ISO 8601 string, milliseconds or {"$numberLong": "..."}'
    )
  }
  return date.toISOString()
}
