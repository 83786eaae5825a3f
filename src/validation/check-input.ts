// The check every request's body and query string passes before any route sees
// it: values PostgreSQL cannot hold or JavaScript cannot keep (NUL characters,
// unpaired surrogates, numbers beyond a double such as 1e400, which JSON parsing
// turns into Infinity) and nesting deeper than any document or query needs.
import { QuireError } from '../errors.ts'
import { LIMITS } from './limits.ts'
import { UNSTORABLE_TEXT } from './values.ts'

function checkText(text: string, where: string): void {
  if (UNSTORABLE_TEXT.test(text))
    throw new QuireError(
      'BAD_REQUEST',
      `The ${where} holds text with NUL characters or unpaired surrogates, which cannot be stored`
    )
}

function checkValue(value: unknown, where: string, depth: number): void {
  if (typeof value === 'string') return checkText(value, where)
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw new QuireError('BAD_REQUEST', `The ${where} holds a number out of range (beyond ±1.8e308)`)
    return
  }
  if (value === null || typeof value !== 'object') return
  if (depth >= LIMITS.valueDepth)
    throw new QuireError(
      'QUERY_TOO_COMPLEX',
      `The ${where} nests objects and arrays more than ${LIMITS.valueDepth} levels deep`
    )
  if (Array.isArray(value)) {
    for (const item of value) checkValue(item, where, depth + 1)
    return
  }
  for (const [key, item] of Object.entries(value)) {
    checkText(key, where)
    checkValue(item, where, depth + 1)
  }
}

/** Throws a 400 QuireError when a parsed body or query string holds a value no engine can take. */
export function checkInput(value: unknown, where: 'body' | 'query string'): void {
  checkValue(value, where, 0)
}
