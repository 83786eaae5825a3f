// The session of JXP's model browser (/docs/api, /docs/model/{name}): a cookie holding the API
// key that POST /docs/session was given, sent back only to /docs pages (Path=/docs, HttpOnly,
// SameSite=Strict, Secure over https), as JXP's docs login keeps it. It is no credential for the
// API itself: only the docs routes read it.
import type { FastifyReply, FastifyRequest } from 'fastify'

const DOCS_SESSION_COOKIE = 'quire_docs_session'
const KEY = /^[A-Za-z0-9_-]{1,200}$/
const MAX_AGE_SECONDS = 86_400

/** The API key of the request's docs session, or undefined. */
export function docsSessionKey(request: FastifyRequest): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, value = ''] = part.trim().split('=', 2)
    if (name === DOCS_SESSION_COOKIE && KEY.test(value)) return value
  }
  return undefined
}

export function setDocsSession(request: FastifyRequest, reply: FastifyReply, apikey: string): void {
  const secure = request.protocol === 'https' ? '; Secure' : ''
  reply.header(
    'set-cookie',
    `${DOCS_SESSION_COOKIE}=${apikey}; Path=/docs; HttpOnly; SameSite=Strict; Max-Age=${MAX_AGE_SECONDS}${secure}`
  )
}

export function isApiKeyShaped(value: unknown): value is string {
  return typeof value === 'string' && KEY.test(value)
}
