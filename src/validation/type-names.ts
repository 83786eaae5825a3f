// The names $type accepts (MongoDB's aliases and numeric codes) and their one
// meaning on every engine. jsonb has one number type, so the four numeric aliases
// differ only in that int and long need an integral value.
import { QuireError } from '../errors.ts'

const TYPE_NAMES = [
  'double',
  'number',
  'decimal',
  'int',
  'long',
  'string',
  'object',
  'array',
  'bool',
  'null',
  'date'
] as const

export type TypeName = (typeof TYPE_NAMES)[number]

/** MongoDB's numeric type codes for the names above. */
const TYPE_CODES: Record<number, TypeName> = {
  1: 'double',
  2: 'string',
  3: 'object',
  4: 'array',
  8: 'bool',
  9: 'date',
  10: 'null',
  16: 'int',
  18: 'long',
  19: 'decimal'
}

/** The type name an alias or code stands for; INVALID_QUERY for anything else. */
export function typeName(alias: unknown): TypeName {
  const name = typeof alias === 'number' && Object.hasOwn(TYPE_CODES, alias) ? TYPE_CODES[alias] : alias
  if (!(TYPE_NAMES as readonly unknown[]).includes(name))
    throw new QuireError('INVALID_QUERY', `Unknown $type: ${JSON.stringify(alias)?.slice(0, 64)}`)
  return name as TypeName
}
