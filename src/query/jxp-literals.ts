// JXP's literal strings in /query filters and /aggregate pipelines, converted as JXP
// converts them (libs/query_manipulation.js), to the values Quire stores:
// "new Date(\"2024-01-02\")" -> the ISO 8601 UTC string of that instant,
// "ObjectId(\"<24 hex>\")" -> the id string, and
// "relative_date(offset, unit, startOf, endOf)" -> now moved by `offset` `unit`s, then
// to the start or end of a unit, in the server's time zone, as moment does it for JXP.
// A string that starts like one of them but does not parse is a 400: it would
// otherwise be compared as text and match nothing.
import dayjs, { type Dayjs, type ManipulateType, type OpUnitType } from 'dayjs'
import isoWeek from 'dayjs/plugin/isoWeek.js'
import quarterOfYear from 'dayjs/plugin/quarterOfYear.js'
import { QuireError } from '../errors.ts'
import { isPlainObject } from '../validation/values.ts'

dayjs.extend(isoWeek)
dayjs.extend(quarterOfYear)

const LITERAL_START = /^\s*(new Date|ObjectId|relative_date)\s*\(/
const NEW_DATE = /^\s*new Date\(\s*(?:(["'])([^"']*)\1|(-?\d{1,16}))?\s*\)\s*$/
const OBJECT_ID = /^\s*ObjectId\(\s*(["'])([0-9a-fA-F]{24})\1\s*\)\s*$/
const RELATIVE_DATE = /^\s*relative_date\(([^()]*)\)\s*$/

/** moment's unit names and abbreviations (plural forms too) -> dayjs units. */
const ADD_UNITS: Record<string, ManipulateType | 'quarter'> = {
  y: 'year',
  year: 'year',
  Q: 'quarter',
  quarter: 'quarter',
  M: 'month',
  month: 'month',
  w: 'week',
  week: 'week',
  d: 'day',
  day: 'day',
  h: 'hour',
  hour: 'hour',
  m: 'minute',
  minute: 'minute',
  s: 'second',
  second: 'second',
  ms: 'millisecond',
  millisecond: 'millisecond'
}
const START_UNITS: Record<string, OpUnitType | 'isoWeek' | 'quarter'> = {
  y: 'year',
  year: 'year',
  Q: 'quarter',
  quarter: 'quarter',
  M: 'month',
  month: 'month',
  w: 'week',
  week: 'week',
  isoWeek: 'isoWeek',
  d: 'day',
  day: 'day',
  date: 'day',
  h: 'hour',
  hour: 'hour',
  m: 'minute',
  minute: 'minute',
  s: 'second',
  second: 'second'
}

function refuse(text: string, expected: string): never {
  throw new QuireError('INVALID_QUERY', `${JSON.stringify(text.slice(0, 80))} is not ${expected}`)
}

function unitOf<T>(table: Record<string, T>, name: string, text: string): T {
  const key = Object.hasOwn(table, name) ? name : name.replace(/s$/, '')
  return Object.hasOwn(table, key) && key !== ''
    ? table[key]
    : refuse(text, `a relative_date: unknown unit ${name.slice(0, 20)} (units: ${Object.keys(table).join(', ')})`)
}

/** JXP's parameters: split on commas, quotes dropped, "null" and "" meaning not given. */
function relativeParams(inner: string): Array<string | undefined> {
  return inner
    .split(',')
    .map(p => p.trim().replace(/["']/g, ''))
    .map(p => (p === '' || p === 'null' ? undefined : p))
}

function relativeDate(text: string, inner: string): string {
  const [offset, offsetUnit, startOf, endOf, ...rest] = relativeParams(inner)
  if (rest.some(p => p !== undefined)) refuse(text, 'a relative_date(offset, unit, startOf, endOf)')
  let date: Dayjs = dayjs()
  if (offset !== undefined) {
    const n = Number(offset)
    if (!Number.isFinite(n)) refuse(text, 'a relative_date: the offset must be a number')
    date = date.add(
      n,
      (offsetUnit === undefined ? 'millisecond' : unitOf(ADD_UNITS, offsetUnit, text)) as ManipulateType
    )
  }
  if (startOf !== undefined) date = date.startOf(unitOf(START_UNITS, startOf, text) as OpUnitType)
  if (endOf !== undefined) date = date.endOf(unitOf(START_UNITS, endOf, text) as OpUnitType)
  return date.isValid() ? date.toISOString() : refuse(text, 'a relative_date within the range of dates')
}

function newDate(text: string, match: RegExpExecArray): string {
  const date =
    match[2] !== undefined ? new Date(match[2]) : match[3] !== undefined ? new Date(Number(match[3])) : new Date()
  return Number.isNaN(date.getTime()) ? refuse(text, 'a valid new Date("...")') : date.toISOString()
}

function convert(text: string): string {
  const kind = LITERAL_START.exec(text)?.[1]
  if (kind === undefined) return text
  if (kind === 'new Date') {
    const match = NEW_DATE.exec(text)
    return match ? newDate(text, match) : refuse(text, 'new Date("<date>"), new Date(<milliseconds>) or new Date()')
  }
  if (kind === 'ObjectId')
    return OBJECT_ID.exec(text)?.[2].toLowerCase() ?? refuse(text, 'ObjectId("<24 hexadecimal characters>")')
  const relative = RELATIVE_DATE.exec(text)
  return relative ? relativeDate(text, relative[1]) : refuse(text, 'a relative_date(offset, unit, startOf, endOf)')
}

/** A copy of a filter or pipeline with JXP's literal strings converted (values only, at any depth). */
export function reviveJxpLiterals(value: unknown): unknown {
  if (typeof value === 'string') return convert(value)
  if (Array.isArray(value)) return value.map(reviveJxpLiterals)
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, reviveJxpLiterals(v)]))
  return value
}
