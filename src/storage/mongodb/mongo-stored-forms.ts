// Filters that find documents in either of the two forms a MongoDB collection may hold them in.
// Quire stores ids as 24-hex strings and dates as ISO 8601 strings (like its SQL engines); a JXP
// app stored the same documents through Mongoose, with ObjectId `_id`s, `_owner_id`s and links,
// BSON dates for createdAt and updatedAt, and `_deleted` possibly unset. MongoDB compares values
// of one type only (a string never equals an ObjectId, nor sorts among dates), so a condition on
// such a field is widened to both forms: an id to the string and its ObjectId, a date to the ISO
// text and the Date, `_deleted: false` to "not true". docs/mongodb.md tells what a JXP user gets.
import { ObjectId, type Document } from 'mongodb'
import { DATE_SYSTEM_FIELDS, type Model } from '../../models/model-definition.ts'

const HEX_ID = /^[0-9a-f]{24}$/i
const ISO_DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/
const ID_SYSTEM = ['_id', '_owner_id']
const RANGE = ['$gt', '$gte', '$lt', '$lte']

type Kind = 'id' | 'date'

/** The fields of `model` whose values are ids or dates (array items too), by path. */
function kindsOf(model: Model): Map<string, Kind> {
  const kinds = new Map<string, Kind>([
    ...ID_SYSTEM.map((f): [string, Kind] => [f, 'id']),
    ...DATE_SYSTEM_FIELDS.map((f): [string, Kind] => [f, 'date'])
  ])
  for (const [name, spec] of Object.entries(model.fields)) {
    const s = spec as { type?: string; items?: { type?: string } }
    const type = s.type === 'array' ? s.items?.type : s.type
    if (type === 'id' || type === 'date') kinds.set(name, type)
  }
  return kinds
}

const cache = new WeakMap<Model, Map<string, Kind>>()
function kinds(model: Model): Map<string, Kind> {
  let found = cache.get(model)
  if (!found) cache.set(model, (found = kindsOf(model)))
  return found
}

/** The other form of a value (ObjectId for 24 hex, Date for ISO text), or undefined when it has none. */
function otherForm(value: unknown, kind: Kind): unknown {
  if (typeof value !== 'string') return undefined
  if (kind === 'id') return HEX_ID.test(value) ? ObjectId.createFromHexString(value) : undefined
  if (!ISO_DATE.test(value)) return undefined
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? undefined : date
}

const both = (values: unknown[], kind: Kind): unknown[] =>
  values.flatMap(v => {
    const other = otherForm(v, kind)
    return other === undefined ? [v] : [v, other]
  })

const isOperators = (value: unknown): value is Record<string, unknown> =>
  value !== null &&
  typeof value === 'object' &&
  !Array.isArray(value) &&
  !(value instanceof ObjectId) &&
  !(value instanceof Date) &&
  Object.keys(value).length > 0 &&
  Object.keys(value).every(k => k.startsWith('$'))

/** One field's condition widened to both forms: a condition object, or several to be OR-ed. */
function widen(path: string, condition: unknown, kind: Kind): Document {
  if (path === '_deleted' && condition === false) return { _deleted: { $ne: true } }
  if (!isOperators(condition)) {
    const other = otherForm(condition, kind)
    return other === undefined ? { [path]: condition } : { [path]: { $in: [condition, other] } }
  }
  const plain: Record<string, unknown> = {}
  const ranges: Record<string, unknown> = {}
  for (const [op, value] of Object.entries(condition)) {
    if (op === '$eq' && otherForm(value, kind) !== undefined && !('$in' in condition)) plain.$in = both([value], kind)
    else if (op === '$ne' && otherForm(value, kind) !== undefined && !('$nin' in condition))
      plain.$nin = both([value], kind)
    else if ((op === '$in' || op === '$nin') && Array.isArray(value)) plain[op] = both(value, kind)
    else if (RANGE.includes(op) && otherForm(value, kind) !== undefined) ranges[op] = value
    else plain[op] = value
  }
  if (Object.keys(ranges).length === 0) return { [path]: plain }
  // A range compares within one type: once on the text, once on the other form.
  const asOther = Object.fromEntries(Object.entries(ranges).map(([op, v]) => [op, otherForm(v, kind)]))
  const range = { $or: [{ [path]: ranges }, { [path]: asOther }] }
  return Object.keys(plain).length ? { $and: [{ [path]: plain }, range] } : range
}

/** The 24 hex digits an `_id` equality of `filter` names, at its top level or in a top-level `$and`. */
export function pinnedHexId(filter: Document): string | undefined {
  const id = filter._id
  if (typeof id === 'string') return HEX_ID.test(id) ? id : undefined
  if (id !== undefined || !Array.isArray(filter.$and)) return undefined
  for (const part of filter.$and as Document[]) {
    const found = pinnedHexId(part)
    if (found !== undefined) return found
  }
  return undefined
}

/**
 * `filter` matching ids and dates in either stored form, except its `_id` equality (`pinnedHexId`),
 * which matches one form only and stands at the top level: FerretDB v1 runs a filter in its
 * database (on the `_id` index) only when `_id` is a plain top-level equality, and reads the whole
 * collection for `$in` of both forms. Its callers try the text first, then the ObjectId.
 */
export function oneIdForm(model: Model, filter: Document, form: 'text' | 'objectId'): Document {
  const id = pinnedHexId(filter)!
  const widened = bothForms(model, filter, id)
  const _id = form === 'text' ? id : ObjectId.createFromHexString(id)
  return '_id' in widened ? { $and: [widened, { _id }] } : { ...widened, _id }
}

/**
 * `filter` (a checked MongoDB filter on `model`) matching ids and dates in either stored form; an `_id` equal to
 * `pinned` is left out (oneIdForm).
 */
export function bothForms(model: Model, filter: Document, pinned?: string): Document {
  const known = kinds(model)
  const parts: Document[] = []
  const rest: Document = {}
  for (const [key, value] of Object.entries(filter)) {
    if ((key === '$and' || key === '$or' || key === '$nor') && Array.isArray(value)) {
      rest[key] = value.map(sub => bothForms(model, sub as Document, pinned))
      continue
    }
    if (key === '_id' && pinned !== undefined && value === pinned) continue
    const kind = known.get(key)
    if (key.startsWith('$') || (kind === undefined && key !== '_deleted')) {
      rest[key] = value
      continue
    }
    if (key === '_deleted' && value !== false) {
      rest[key] = value
      continue
    }
    const widened = widen(key, value, kind ?? 'id')
    if ('$or' in widened || '$and' in widened) parts.push(widened)
    else Object.assign(rest, widened)
  }
  if (parts.length === 0) return rest
  const all = [...(Object.keys(rest).length ? [rest] : []), ...parts]
  return all.length === 1 ? all[0] : { $and: all }
}
