// Parses a list read's URL parameters (limit, page, skip, sort, fields, filter[...],
// search, search[...], populate, autopopulate, showDeleted, count) into a typed form,
// with JXP's habits: flags as 1/0, sort[f]=asc|desc, filter[f][$op]=v, limit=0 and
// page=0 meaning the defaults, other parameters ignored (src/query/param-names.ts).
// A `filter[field]=...` value becomes a MongoDB condition, coerced by the field's declared kind:
// `$gt:5`, `$in:[a,b]`, `$regex:/pat/flags`, `$exists:true`, or a plain value for equality.
// Nothing here touches the database; the query builder adds permissions.
import type { Model } from '../models/model-definition.ts'
import { fieldKindLookup, fieldSpecAt } from '../models/field-kinds.ts'
import type { FieldKind, Filter, Sort } from './types.ts'
import { toIsoDate } from '../models/normalize-dates.ts'
import { QuireError } from '../errors.ts'
import { checkUnknownParam, parseFlag } from './param-names.ts'
import { parseCountMode, type CountMode } from './plan-list.ts'
import { LIMITS } from '../validation/limits.ts'

const OPERATORS = ['$gt', '$gte', '$lt', '$lte', '$ne', '$eq', '$in', '$nin', '$exists', '$regex'] as const
const REGEX_LITERAL = /^\/([\s\S]*)\/([a-z]*)$/

function badValue(field: string, value: string, expected: string): QuireError {
  return new QuireError('INVALID_QUERY', `filter[${field}]: ${JSON.stringify(value.slice(0, 50))} is not ${expected}`)
}

/** Converts URL text to the JS value a field of `kind` holds. */
function coerceValue(field: string, kind: FieldKind | undefined, text: string): unknown {
  switch (kind) {
    case 'number':
    case 'integer': {
      const n = Number(text)
      if (text.trim() === '' || !Number.isFinite(n)) throw badValue(field, text, 'a number')
      return n
    }
    case 'boolean':
      if (text === 'true' || text === 'false') return text === 'true'
      throw badValue(field, text, 'true or false')
    case 'date': {
      const iso = toIsoDate(text)
      if (!iso) throw badValue(field, text, 'a date (ISO 8601 or Unix time)')
      return iso
    }
    default:
      return text === 'null' ? null : text
  }
}

function parseList(text: string): string[] {
  const inner = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text
  return inner === '' ? [] : inner.split(',').map(s => s.trim())
}

function parseRegex(text: string): { $regex: string; $options?: string } {
  const match = REGEX_LITERAL.exec(text)
  if (!match) return { $regex: text }
  return match[2] ? { $regex: match[1], $options: match[2] } : { $regex: match[1] }
}

/** The condition for one filter value; `kind` is the field's kind (element kind for arrays). */
function parseFilterValue(field: string, kind: FieldKind | undefined, raw: string): Record<string, unknown> | unknown {
  const op = OPERATORS.find(o => raw.startsWith(`${o}:`))
  if (!op) return coerceValue(field, kind, raw)
  const text = raw.slice(op.length + 1)
  switch (op) {
    case '$in':
    case '$nin':
      return { [op]: parseList(text).map(v => coerceValue(field, kind, v)) }
    case '$exists':
      if (text !== 'true' && text !== 'false') throw badValue(field, text, 'true or false')
      return { $exists: text === 'true' }
    case '$regex':
      return parseRegex(text)
    default:
      return { [op]: coerceValue(field, kind, text) }
  }
}

export type QueryParams = Record<string, string | string[] | undefined>

export interface ListParams {
  limit?: number
  page: number
  /** Documents skipped before the page (JXP's `skip`), added to the page's own offset. */
  skip: number
  sort: Sort
  fields?: string[]
  filter: Filter
  search?: string
  /** Populate requests: link name (or field) -> only these fields (undefined: all). */
  populate: Map<string, string[] | undefined>
  autopopulate: boolean
  showDeleted: boolean
  /** How the list's count is made (src/query/plan-list.ts); undefined: the default. */
  count?: CountMode
}

/**
 * Every parameter a list read knows (credentials are read by the auth plugin; `count` chooses how the count is made).
 */
const KNOWN_PARAMS = [
  'limit',
  'page',
  'skip',
  'sort',
  'fields',
  'filter',
  'search',
  'populate',
  'autopopulate',
  'showDeleted',
  'count',
  'apikey',
  'jwt'
]
const BRACKET_KEY = /^(filter|search|sort|populate)\[([^\]]*)\](?:\[([^\]]*)\])?$/
const SORT_WORDS: Record<string, 1 | -1> = { 1: 1, '-1': -1, asc: 1, ascending: 1, desc: -1, descending: -1 }

function values(raw: string | string[] | undefined): string[] {
  if (raw === undefined) return []
  const list = Array.isArray(raw) ? raw : [raw]
  for (const v of list)
    if (v.length > LIMITS.urlValueLength)
      throw new QuireError('QUERY_TOO_COMPLEX', `A parameter value is longer than ${LIMITS.urlValueLength} characters`)
  return list
}

function single(name: string, raw: string | string[] | undefined): string | undefined {
  const list = values(raw)
  if (list.length > 1) throw new QuireError('BAD_REQUEST', `${name} is given more than once`)
  return list[0]
}

/** A whole number from 0; 0 (as JXP reads it) means "not given" for limit and page. */
function wholeNumber(name: string, raw: string | string[] | undefined): number | undefined {
  const text = single(name, raw)
  if (text === undefined) return undefined
  if (!/^[0-9]{1,9}$/.test(text)) throw new QuireError('BAD_REQUEST', `${name} must be a whole number`)
  return Number(text)
}

function positiveInt(name: string, raw: string | string[] | undefined): number | undefined {
  return wholeNumber(name, raw) || undefined
}

function bool(name: string, raw: string | string[] | undefined): boolean {
  return parseFlag(name, single(name, raw))
}

function commaList(raw: string | string[] | undefined): string[] {
  return values(raw)
    .flatMap(v => v.split(','))
    .map(s => s.trim())
    .filter(Boolean)
}

/** Sort terms separated by commas or (as Mongoose reads a sort string) spaces: `-n,name` or `-n name`. */
function sortTerms(raw: string | string[] | undefined): string[] {
  return values(raw)
    .flatMap(v => v.split(/[\s,]+/))
    .filter(Boolean)
}

/** `filter[f][$op]=v` (JXP's clients send bracketed operators) is `filter[f]=$op:v`. */
function operatorValues(field: string, op: string | undefined, raw: string | string[] | undefined): string[] {
  if (op === undefined) return values(raw)
  if (!/^\$[a-z]+$/.test(op))
    throw new QuireError('BAD_REQUEST', `Malformed query parameter: filter[${field.slice(0, 64)}][${op.slice(0, 20)}]`)
  return values(raw).map(v => `${op}:${v}`)
}

/** The kind of the values a filter compares against: the element kind for arrays. */
function valueKind(model: Model, path: string): FieldKind | undefined {
  const spec = fieldSpecAt(model, path)
  if (spec?.type === 'array')
    return spec.items ? fieldKindLookup({ ...model, fields: { x: spec.items } })('x') : undefined
  return fieldKindLookup(model)(path)
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function addSort(sort: Sort, term: string, direction?: string): void {
  if (direction !== undefined) {
    const value = Object.hasOwn(SORT_WORDS, direction.toLowerCase()) ? SORT_WORDS[direction.toLowerCase()] : undefined
    if (value === undefined)
      throw new QuireError('BAD_REQUEST', `sort[${term.slice(0, 64)}] must be 1, -1, asc or desc`)
    sort.push([term, value])
  } else if (term.startsWith('-')) sort.push([term.slice(1), -1])
  else sort.push([term.replace(/^\+/, ''), 1])
}

interface Collected {
  conditions: Filter[]
  sort: Sort
  populate: Map<string, string[] | undefined>
}

function collectBracket(
  model: Model,
  [name, kind, key, op]: string[],
  raw: string | string[] | undefined,
  into: Collected
): void {
  if (op !== undefined && kind !== 'filter')
    throw new QuireError('BAD_REQUEST', `Malformed query parameter: ${name.slice(0, 64)}`)
  switch (kind) {
    case 'filter':
      for (const v of operatorValues(key, op, raw))
        into.conditions.push({ [key]: parseFilterValue(key, valueKind(model, key), v) })
      break
    case 'search':
      for (const v of values(raw)) into.conditions.push({ [key]: { $regex: escapeRegex(v), $options: 'i' } })
      break
    case 'sort':
      addSort(into.sort, key, single(`sort[${key}]`, raw))
      break
    case 'populate':
      if (key === '') for (const name of commaList(raw)) into.populate.set(name, undefined)
      else into.populate.set(key, commaList(raw))
  }
}

/**
 * One filter of the URL's conditions: merged when every field appears once (as own keys, so `__proto__` stays visible
 * to the check), else under $and.
 */
function combine(conditions: Filter[]): Filter {
  if (conditions.length > LIMITS.urlFilterTerms)
    throw new QuireError('QUERY_TOO_COMPLEX', `At most ${LIMITS.urlFilterTerms} filter terms`)
  const entries = conditions.map(c => Object.entries(c)[0])
  if (new Set(entries.map(([field]) => field)).size === entries.length) return Object.fromEntries(entries)
  return { $and: conditions }
}

/** A bare `filter=x` filters on no field: a 400 rather than a list that ignores it (an empty one is nothing). */
function checkBareFilter(raw: string | string[] | undefined): void {
  if (values(raw).some(v => v !== '')) throw new QuireError('BAD_REQUEST', 'filter needs a field: filter[field]=value')
}

/** The full-text search text; an empty `search=` is no search (JXP's clients send it). */
function searchText(raw: string | string[] | undefined): string | undefined {
  const text = single('search', raw)
  return text === '' ? undefined : text
}

/** Parses a list read's query string for `model`; throws a 400 QuireError on anything malformed. */
export function parseListParams(model: Model, query: QueryParams): ListParams {
  const into: Collected = { conditions: [], sort: [], populate: new Map() }
  for (const [name, raw] of Object.entries(query)) {
    const bracket = BRACKET_KEY.exec(name)
    if (bracket) collectBracket(model, [...bracket], raw, into)
    else if (name === 'sort') for (const term of sortTerms(raw)) addSort(into.sort, term)
    else if (name === 'populate') for (const link of commaList(raw)) into.populate.set(link, undefined)
    else if (name === 'filter') checkBareFilter(raw)
    else if (!KNOWN_PARAMS.includes(name)) checkUnknownParam(name, KNOWN_PARAMS)
  }
  const count = parseCountMode(query.count)
  const fields = query.fields === undefined ? undefined : commaList(query.fields)
  return {
    limit: positiveInt('limit', query.limit),
    page: positiveInt('page', query.page) ?? 1,
    skip: wholeNumber('skip', query.skip) ?? 0,
    sort: into.sort,
    fields,
    filter: combine(into.conditions),
    search: searchText(query.search),
    populate: into.populate,
    autopopulate: bool('autopopulate', query.autopopulate),
    showDeleted: bool('showDeleted', query.showDeleted),
    ...(count && { count })
  }
}
