// Maps every error to the catalogue's envelope: client mistakes become 4xx with
// a stable code; a database out of reach is a 503; anything else is logged and
// answered with a bare 500.
import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify'
import { QuireError, errorBody } from '../src/errors.ts'
import { compatBody, compatStatus } from '../src/jxp/compat-errors.ts'
import { UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from '../src/storage/database-unavailable.ts'

/** When a client told the database is busy (its statement could not get a turn in time) may try again. */
const BUSY_RETRY_AFTER_SECONDS = '1'

function toQuireError(err: FastifyError): QuireError | undefined {
  if (err instanceof QuireError) return err
  if (err.validation) {
    const details = err.validation.slice(0, 20).map(v => ({
      field: (v.instancePath || (v.params as { missingProperty?: string }).missingProperty || '')
        .replace(/^\//, '')
        .replace(/\//g, '.'),
      message: v.message ?? 'is invalid'
    }))
    const code = err.validationContext === 'body' ? 'INVALID_BODY' : 'BAD_REQUEST'
    return new QuireError(
      code,
      `Invalid ${err.validationContext ?? 'request'}: ${details.map(d => `${d.field} ${d.message}`.trim()).join(', ')}`,
      details
    )
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new QuireError('PAYLOAD_TOO_LARGE')
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new QuireError(
        'UNSUPPORTED_MEDIA_TYPE',
        'Send JSON (application/json) or a form (application/x-www-form-urlencoded)'
      )
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new QuireError('INVALID_BODY', 'The body is not valid JSON')
  }
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) return new QuireError('BAD_REQUEST', err.message)
  return undefined
}

async function errorsPlugin(app: FastifyInstance): Promise<void> {
  /** The answer for `err`; under JXP_COMPAT in JXP's terms (src/jxp/compat-errors.ts). */
  const answer = (reply: FastifyReply, err: QuireError): FastifyReply => {
    if (!app.config.jxpCompat) return reply.code(err.status).send(errorBody(err))
    const status = compatStatus(err)
    return reply.code(status).send(compatBody(errorBody(err), status))
  }
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (isDatabaseUnavailable(err)) {
      request.log.warn({ err }, 'the database is unavailable')
      return answer(reply.header('retry-after', '5'), new QuireError('UNAVAILABLE', UNAVAILABLE_MESSAGE))
    }
    const known = toQuireError(err)
    if (known) {
      if (known.code === 'RATE_LIMITED' && known.details)
        reply.header('retry-after', String((known.details as { retryAfter: number }).retryAfter))
      else if (known.status === 503 && !reply.hasHeader('retry-after'))
        reply.header('retry-after', BUSY_RETRY_AFTER_SECONDS)
      return answer(reply, known)
    }
    request.log.error({ err }, 'unexpected error')
    return answer(reply, new QuireError('INTERNAL'))
  })
  app.setNotFoundHandler((request, reply) => {
    answer(
      reply,
      new QuireError('NOT_FOUND', `No route for ${request.method} ${request.url.split('?')[0].slice(0, 100)}`)
    )
  })
}

export default fp(errorsPlugin, { name: 'errors' })
