// Keeps credentials out of the request log: Fastify logs each request's URL, and
// `apikey` and `jwt` query parameters are credentials, so their values are
// replaced by "[redacted]" (authorization headers are not logged at all). Near
// misses (`apiKey`, `api_key`, `apikey[]`) and credential-shaped text anywhere in
// the URL are redacted too: a request refused for its typo still carries a live key.

import type { FastifyServerOptions } from 'fastify'
import { PREFIX } from './secrets.ts'

type LoggerOption = FastifyServerOptions['logger']

/** Query parameter names that carry credentials, by their letters alone in lower case. */
const SECRET_PARAMS = new Set(['apikey', 'jwt'])
/** Quire's tokens and API keys (src/auth/secrets.ts) and JWTs (login links), wherever they appear. */
const SECRET_SHAPE = new RegExp(`${Object.values(PREFIX).join('|')}|eyJ[\\w-]*\\.[\\w-]*\\.`)

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '))
  } catch {
    return text
  }
}

const isSecretName = (name: string): boolean =>
  SECRET_PARAMS.has(
    decoded(name)
      .toLowerCase()
      .replace(/[^a-z]/g, '')
  )
const holdsSecret = (text: string): boolean => SECRET_SHAPE.test(decoded(text))

/** The URL with the values of credential query parameters, and path segments holding credentials, redacted. */
export function redactUrl(url: string): string {
  const mark = url.indexOf('?')
  const path = (mark < 0 ? url : url.slice(0, mark))
    .split('/')
    .map(segment => (holdsSecret(segment) ? '[redacted]' : segment))
    .join('/')
  if (mark < 0) return path
  const pairs = url
    .slice(mark + 1)
    .split('&')
    .map(pair => {
      const eq = pair.indexOf('=')
      const name = eq < 0 ? pair : pair.slice(0, eq)
      return isSecretName(name) || holdsSecret(pair) ? `${holdsSecret(name) ? '[redacted]' : name}=[redacted]` : pair
    })
  return `${path}?${pairs.join('&')}`
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
function serializeRequest(req: LoggedRequest): Record<string, unknown> {
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
export function withRedactedUrls(logger: LoggerOption): LoggerOption {
  if (!logger) return logger
  const options = logger === true ? {} : logger
  return { ...options, serializers: { ...options.serializers, req: serializeRequest } } as unknown as LoggerOption
}
