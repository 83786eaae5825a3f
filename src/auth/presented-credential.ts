// Finds the one credential a request presents: Authorization (Basic or Bearer),
// an API key (query `apikey`, header `apikey` or `X-API-Key`) or a login JWT
// (query `jwt`). More than one, or a malformed one, is refused (401).
import type { IncomingHttpHeaders } from 'node:http'
import { QuireError } from '../errors.ts'

export type Presented =
  | { kind: 'basic', email: string, password: string }
  | { kind: 'bearer', token: string }
  | { kind: 'apikey', key: string }
  | { kind: 'jwt', jwt: string }

function denied (reason: string): never {
  throw new QuireError('AUTH_FAILED', 'Authentication failed', undefined, reason)
}

/** Email and password of a Basic authorization header, or undefined when it is malformed. */
export function parseBasic (header: string): { email: string, password: string } | undefined {
  const decoded = Buffer.from(header.replace(/^basic\s+/i, ''), 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  return colon > 0 ? { email: decoded.slice(0, colon), password: decoded.slice(colon + 1) } : undefined
}

function fromAuthorization (header: string): Presented {
  if (/^basic\s/i.test(header)) {
    const pair = parseBasic(header)
    return pair ? { kind: 'basic', ...pair } : denied('Malformed Basic credentials')
  }
  if (/^bearer\s/i.test(header)) {
    const token = header.slice(7).trim()
    return token ? { kind: 'bearer', token } : denied('Empty bearer token')
  }
  return denied('Unsupported authorization scheme')
}

function single (name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string') return denied(`${name} is given more than once`)
  return value
}

/** The credential the request presents, or undefined for an anonymous request. */
export function presentedCredential (headers: IncomingHttpHeaders, query: unknown): Presented | undefined {
  const params = (query && typeof query === 'object' ? query : {}) as Record<string, unknown>
  const found: Presented[] = []
  if (headers.authorization !== undefined) found.push(fromAuthorization(headers.authorization))
  for (const [name, value] of [['apikey', params.apikey], ['apikey header', headers.apikey], ['X-API-Key header', headers['x-api-key']]]) {
    const key = single(name as string, value)
    if (key !== undefined) found.push({ kind: 'apikey', key })
  }
  const jwt = single('jwt', params.jwt)
  if (jwt !== undefined) found.push({ kind: 'jwt', jwt })
  if (found.length > 1) denied('Present only one credential per request')
  return found[0]
}
