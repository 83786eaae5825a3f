// The key of a cached read: what the caller may see (admins all see the same, anonymous callers
// the same; anyone else only their own view, which depends on their roles, groups and owned
// documents) and the request's path and parameters, credentials left out.
import type { FastifyRequest } from 'fastify'

const CREDENTIAL_PARAMS = new Set(['apikey', 'jwt'])

function viewOf(request: FastifyRequest): string {
  const { caller } = request
  if (caller.admin) return 'admin'
  return caller.userId === undefined ? 'anonymous' : `user:${caller.userId}`
}

export function cacheKey(request: FastifyRequest): string {
  const [path, search = ''] = request.url.split('?', 2)
  const params = new URLSearchParams(search)
  for (const name of CREDENTIAL_PARAMS) params.delete(name)
  params.sort()
  return `${viewOf(request)}\n${path}?${params.toString()}`
}
