// Keeps credentials out of the request log: Fastify logs each request's URL, and
// `apikey` and `jwt` query parameters are credentials, so their values are
// replaced by "[redacted]" (authorization headers are not logged at all).

import type { FastifyServerOptions } from 'fastify'

type LoggerOption = FastifyServerOptions['logger']

const SECRET_PARAMS = new Set(['apikey', 'jwt'])

function decoded (text: string): string {
  try { return decodeURIComponent(text.replace(/\+/g, ' ')) } catch { return text }
}

/** The URL with the values of credential query parameters redacted. */
function redactUrl (url: string): string {
  const mark = url.indexOf('?')
  if (mark < 0) return url
  const pairs = url.slice(mark + 1).split('&').map(pair => {
    const eq = pair.indexOf('=')
    const name = decoded(eq < 0 ? pair : pair.slice(0, eq))
    return SECRET_PARAMS.has(name) ? `${eq < 0 ? pair : pair.slice(0, eq)}=[redacted]` : pair
  })
  return `${url.slice(0, mark)}?${pairs.join('&')}`
}

interface LoggedRequest {
  method: string
  url: string
  headers: Record<string, string | string[] | undefined>
  host?: string
  ip?: string
  socket?: { remotePort?: number }
}

/** Fastify's request log serializer, with the URL redacted. */
function serializeRequest (req: LoggedRequest): Record<string, unknown> {
  return {
    method: req.method,
    url: redactUrl(req.url),
    version: req.headers['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort
  }
}

/** Fastify logger options with the redacting request serializer added (false stays false). */
export function withRedactedUrls (logger: LoggerOption): LoggerOption {
  if (!logger) return logger
  const options = logger === true ? {} : logger
  return { ...options, serializers: { ...options.serializers, req: serializeRequest } } as unknown as LoggerOption
}
