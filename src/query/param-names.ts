// What a request may carry besides the parameters an endpoint reads: JXP's clients
// add their own (cache busters such as `_=<timestamp>`, flags Quire does not need),
// which are ignored. A parameter that looks like a misspelled known one (`limt`,
// `Fields`, `showdeleted`) or a malformed one (`filter[a][b][c]`) is a 400 naming it:
// a typo must not silently widen a result.
import { distance } from 'fastest-levenshtein'
import { QuireError } from '../errors.ts'

/** Edits a name may be away from a known one to count as its misspelling: one, two from six letters (`fitler`). */
function typos(name: string): number {
  return name.length >= 6 ? 2 : 1
}

/** Throws a 400 for a parameter `known` does not list but that looks like one of them; other names are ignored. */
export function checkUnknownParam(name: string, known: readonly string[]): void {
  const base = name.split('[')[0]
  const shown = name.slice(0, 64)
  if (known.includes(base)) throw new QuireError('BAD_REQUEST', `Malformed query parameter: ${shown}`)
  const lower = base.toLowerCase()
  const near = known.find(
    k => k.toLowerCase() === lower || (base.length >= 4 && distance(k.toLowerCase(), lower) <= typos(base))
  )
  if (near) throw new QuireError('BAD_REQUEST', `Unknown query parameter ${shown}: did you mean ${near}?`)
}

/**
 * A flag: true for `true`, `1` or an empty value (`?showDeleted`), false for `false` or `0`; JXP's clients send `1`.
 */
export function parseFlag(name: string, text: string | undefined): boolean {
  if (text === undefined || text === 'false' || text === '0') return false
  if (text === 'true' || text === '1' || text === '') return true
  throw new QuireError('BAD_REQUEST', `${name} must be true or false (or 1 or 0)`)
}

/**
 * The flags of a query string that takes only flags (DELETE's _permaDelete and _cascade,
 * /aggregate's showDeleted): each true or false; other parameters ignored, misspelled ones refused.
 */
export function readFlags<N extends string>(
  query: Record<string, string | string[] | undefined>,
  flags: readonly N[]
): Record<N, boolean> {
  const known = [...flags, 'apikey', 'jwt']
  for (const name of Object.keys(query)) if (!known.includes(name)) checkUnknownParam(name, known)
  return Object.fromEntries(
    flags.map(name => {
      const raw = query[name]
      if (Array.isArray(raw)) throw new QuireError('BAD_REQUEST', `${name} is given more than once`)
      return [name, parseFlag(name, raw)]
    })
  ) as Record<N, boolean>
}
