// One log line per request, at info when it is answered: method and URL (credentials redacted),
// route, status, time, the caller's user id and the request id (Fastify's own two lines are
// off; the arrival is logged at debug). The request id is the client's X-Request-Id when it
// looks safe (letters, digits and ._:=+/-, at most 128), a new UUID otherwise, and every answer
// carries it back in X-Request-Id, so a client's report can be found in the log.
import fp from 'fastify-plugin'
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { redactUrl } from '../src/auth/log-redaction.ts'

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:=+/-]{1,128}$/

/** Fastify's genReqId: the client's X-Request-Id when it is safe to log and echo, else a new UUID. */
export function requestId (raw: IncomingMessage): string {
  const given = raw.headers['x-request-id']
  return typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID()
}

async function requestLogPlugin (app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    request.log.debug({ req: request }, 'incoming request')
    done()
  })
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? '(no route)'
    const ms = Math.round(reply.elapsedTime * 10) / 10
    request.log.info({
      req: request,
      route,
      res: { statusCode: reply.statusCode },
      responseTime: ms,
      caller: request.caller?.userId ?? null
    }, `${request.method} ${redactUrl(request.url)} ${reply.statusCode} ${ms} ms`)
    done()
  })
}

export default fp(requestLogPlugin, { name: 'request-log' })
