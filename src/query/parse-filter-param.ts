// Parses one `filter[field]=...` URL value into a MongoDB condition, coercing
// the value by the field's declared kind: `$gt:5`, `$in:[a,b]`,
// `$regex:/pat/flags`, `$exists:true`, or a plain value for equality.
import type { FieldKind } from './types.ts'
import { toIsoDate } from '../models/normalize-dates.ts'
import { QuireError } from '../errors.ts'

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
export function parseFilterValue(
  field: string,
  kind: FieldKind | undefined,
  raw: string
): Record<string, unknown> | unknown {
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
