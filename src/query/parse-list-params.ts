// Parses a list read's URL parameters (limit, page, sort, fields, filter[...],
// search, search[...], populate, autopopulate, showDeleted) into a typed form.
// Nothing here touches the database; the query builder adds permissions.
import type { Model } from '../models/model-definition.ts'
import { fieldKindLookup, fieldSpecAt } from '../models/field-kinds.ts'
import type { FieldKind, Filter, Sort } from './types.ts'
import { parseFilterValue } from './parse-filter-param.ts'
import { QuireError } from '../errors.ts'

export type QueryParams = Record<string, string | string[] | undefined>

export interface ListParams {
  limit?: number
  page: number
  sort: Sort
  fields?: string[]
  filter: Filter
  search?: string
  /** Populate requests: link name (or field) -> only these fields (undefined: all). */
  populate: Map<string, string[] | undefined>
  autopopulate: boolean
  showDeleted: boolean
}

export const LIST_LIMITS = { sortTerms: 8, fields: 50, filterTerms: 50, textLength: 1000 }

/** Parameters that carry credentials, read by the auth plugin, not by the query. */
const CREDENTIAL_PARAMS = new Set(['apikey', 'jwt'])
const BRACKET_KEY = /^(filter|search|sort|populate)\[([^\]]*)\]$/

function values (raw: string | string[] | undefined): string[] {
  if (raw === undefined) return []
  const list = Array.isArray(raw) ? raw : [raw]
  for (const v of list) if (v.length > LIST_LIMITS.textLength) throw new QuireError('QUERY_TOO_COMPLEX', `A parameter value is longer than ${LIST_LIMITS.textLength} characters`)
  return list
}

function single (name: string, raw: string | string[] | undefined): string | undefined {
  const list = values(raw)
  if (list.length > 1) throw new QuireError('BAD_REQUEST', `${name} is given more than once`)
  return list[0]
}

function positiveInt (name: string, raw: string | string[] | undefined): number | undefined {
  const text = single(name, raw)
  if (text === undefined) return undefined
  if (!/^[1-9][0-9]{0,8}$/.test(text)) throw new QuireError('BAD_REQUEST', `${name} must be a whole number from 1`)
  return Number(text)
}

function bool (name: string, raw: string | string[] | undefined): boolean {
  const text = single(name, raw)
  if (text === undefined || text === 'false') return false
  if (text === 'true' || text === '') return true
  throw new QuireError('BAD_REQUEST', `${name} must be true or false`)
}

function commaList (raw: string | string[] | undefined): string[] {
  return values(raw).flatMap(v => v.split(',')).map(s => s.trim()).filter(Boolean)
}

/** The kind of the values a filter compares against: the element kind for arrays. */
function valueKind (model: Model, path: string): FieldKind | undefined {
  const spec = fieldSpecAt(model, path)
  if (spec?.type === 'array') return spec.items ? fieldKindLookup({ ...model, fields: { x: spec.items } })('x') : undefined
  return fieldKindLookup(model)(path)
}

function escapeRegex (text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function addSort (sort: Sort, term: string, direction?: string): void {
  if (direction !== undefined) {
    if (direction !== '1' && direction !== '-1') throw new QuireError('BAD_REQUEST', `sort[${term}] must be 1 or -1`)
    sort.push([term, direction === '1' ? 1 : -1])
  } else if (term.startsWith('-')) sort.push([term.slice(1), -1])
  else sort.push([term.replace(/^\+/, ''), 1])
}

interface Collected { conditions: Filter[], sort: Sort, populate: Map<string, string[] | undefined> }

function collectBracket (model: Model, kind: string, key: string, raw: string | string[] | undefined, into: Collected): void {
  switch (kind) {
    case 'filter':
      for (const v of values(raw)) into.conditions.push({ [key]: parseFilterValue(key, valueKind(model, key), v) })
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

/** One filter of the URL's conditions: merged when every field appears once (as own keys, so `__proto__` stays visible to the check), else under $and. */
function combine (conditions: Filter[]): Filter {
  if (conditions.length > LIST_LIMITS.filterTerms) throw new QuireError('QUERY_TOO_COMPLEX', `At most ${LIST_LIMITS.filterTerms} filter terms`)
  const entries = conditions.map(c => Object.entries(c)[0])
  if (new Set(entries.map(([field]) => field)).size === entries.length) return Object.fromEntries(entries)
  return { $and: conditions }
}

/** The full-text search text; an empty `search=` is no search (JXP's clients send it). */
function searchText (raw: string | string[] | undefined): string | undefined {
  const text = single('search', raw)
  return text === '' ? undefined : text
}

/** Parses a list read's query string for `model`; throws a 400 QuireError on anything malformed. */
export function parseListParams (model: Model, query: QueryParams): ListParams {
  const into: Collected = { conditions: [], sort: [], populate: new Map() }
  for (const [name, raw] of Object.entries(query)) {
    const bracket = BRACKET_KEY.exec(name)
    if (bracket) collectBracket(model, bracket[1], bracket[2], raw, into)
    else if (name === 'sort') for (const term of commaList(raw)) addSort(into.sort, term)
    else if (name === 'populate') for (const link of commaList(raw)) into.populate.set(link, undefined)
    else if (!['limit', 'page', 'fields', 'search', 'autopopulate', 'showDeleted'].includes(name) && !CREDENTIAL_PARAMS.has(name)) {
      throw new QuireError('BAD_REQUEST', `Unknown query parameter: ${name.slice(0, 64)}`)
    }
  }
  if (into.sort.length > LIST_LIMITS.sortTerms) throw new QuireError('QUERY_TOO_COMPLEX', `At most ${LIST_LIMITS.sortTerms} sort terms`)
  const fields = query.fields === undefined ? undefined : commaList(query.fields)
  if (fields && fields.length > LIST_LIMITS.fields) throw new QuireError('QUERY_TOO_COMPLEX', `At most ${LIST_LIMITS.fields} fields`)
  return {
    limit: positiveInt('limit', query.limit),
    page: positiveInt('page', query.page) ?? 1,
    sort: into.sort,
    fields,
    filter: combine(into.conditions),
    search: searchText(query.search),
    populate: into.populate,
    autopopulate: bool('autopopulate', query.autopopulate),
    showDeleted: bool('showDeleted', query.showDeleted)
  }
}
