// Finds the one credential a request presents: Authorization (Basic or Bearer),
// an API key (query `apikey`, header `apikey` or `X-API-Key`) or a login JWT
// (query `jwt`). More than one, or a malformed one, is refused (401). A Basic
// header is only recognized here: @fastify/basic-auth parses it.
import type { IncomingHttpHeaders } from 'node:http'
import { QuireError } from '../errors.ts'

export type Presented =
  /** `encoded`: the header's credentials part (base64 of `email:password`), as sent. */
  | { kind: 'basic'; encoded: string }
  | { kind: 'bearer'; token: string }
  | { kind: 'apikey'; key: string }
  | { kind: 'jwt'; jwt: string }

function denied(reason: string): never {
  throw new QuireError('AUTH_FAILED', 'Authentication failed', undefined, reason)
}

function fromAuthorization(header: string): Presented {
  if (/^basic\s/i.test(header)) return { kind: 'basic', encoded: header.slice(6).trim() }
  if (/^bearer\s/i.test(header)) {
    const token = header.slice(7).trim()
    return token ? { kind: 'bearer', token } : denied('Empty bearer token')
  }
  return denied('Unsupported authorization scheme')
}

function single(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string') return denied(`${name} is given more than once`)
  return value
}

/**
 * `?apikey=undefined` (or `null`) is what jxp-helper sends when it has no key: no key, so the
 * request is anonymous. No API key has these values; an empty or unknown key is still a 401.
 */
function noKey(value: unknown): unknown {
  return value === 'undefined' || value === 'null' ? undefined : value
}

/** The credential the request presents, or undefined for an anonymous request. */
export function presentedCredential(headers: IncomingHttpHeaders, query: unknown): Presented | undefined {
  const params = (query && typeof query === 'object' ? query : {}) as Record<string, unknown>
  const found: Presented[] = []
  if (headers.authorization !== undefined) found.push(fromAuthorization(headers.authorization))
  for (const [name, value] of [
    ['apikey', noKey(params.apikey)],
    ['apikey header', headers.apikey],
    ['X-API-Key header', headers['x-api-key']]
  ]) {
    const key = single(name as string, value)
    if (key !== undefined) found.push({ kind: 'apikey', key })
  }
  const jwt = single('jwt', params.jwt)
  if (jwt !== undefined) found.push({ kind: 'jwt', jwt })
  if (found.length > 1) denied('Present only one credential per request')
  return found[0]
}
