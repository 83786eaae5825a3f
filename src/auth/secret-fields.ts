// Password hashes never leave the database, and neither does anything about
// them: a filter or sort on a password field (e.g. $regex on a growing prefix)
// would let any reader recover a hash one character at a time. Such queries are
// refused with a 400.
import type { Model } from '../models/model-definition.ts'
import type { Filter, Sort } from '../query/types.ts'
import { QuireError } from '../errors.ts'

const WHOLE_DOCUMENT = ['$$ROOT', '$$CURRENT']

function isSecretPath (secrets: string[], path: string): boolean {
  return secrets.includes(path.split('.')[0])
}

/** The first reference to a password field in a filter: a field path, or inside $expr a "$field" or the whole document. */
function secretReference (secrets: string[], value: unknown, inExpr: boolean): string | undefined {
  if (typeof value === 'string') {
    const named = inExpr && value.startsWith('$') && (isSecretPath(secrets, value.slice(1)) || WHOLE_DOCUMENT.some(w => value.startsWith(w)))
    return named ? value : undefined
  }
  const entries = Array.isArray(value) ? value.map(v => ['$', v] as const) : value && typeof value === 'object' ? Object.entries(value) : []
  for (const [key, inner] of entries) {
    if (!inExpr && !key.startsWith('$') && isSecretPath(secrets, key)) return key
    const found = secretReference(secrets, inner, inExpr || key === '$expr')
    if (found !== undefined) return found
  }
  return undefined
}

/** Throws INVALID_FIELD when the filter or sort of a read of `model` touches a password field. */
export function refuseSecretFields (model: Model, filter: Filter, sort: Sort = []): void {
  const secrets = model.passwordFields
  if (secrets.length === 0) return
  const found = secretReference(secrets, filter, false) ?? sort.map(([path]) => path).find(path => isSecretPath(secrets, path))
  if (found !== undefined) throw new QuireError('INVALID_FIELD', `${found.slice(0, 64)} cannot be used in a query: it holds a password hash`)
}
