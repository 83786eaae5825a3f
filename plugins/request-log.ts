// One log line per request, at info when it is answered (error when the answer failed): method
// and URL (credentials redacted), route, status, time, the caller's user id and the request id,
// in place of Fastify's two lines (its arrival line stays, at debug). The request id is the
// client's X-Request-Id when it looks safe (letters, digits and ._:=+/-, at most 128), a new
// UUID otherwise, and every answer carries it back in X-Request-Id, so that a client's report
// can be found in the log.
import fp from 'fastify-plugin'
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest
} from 'fastify'
import { redactUrl } from '../src/auth/log-redaction.ts'

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:=+/-]{1,128}$/

/** Fastify's genReqId: the client's X-Request-Id when it is safe to log and echo, else a new UUID. */
export function requestId(raw: IncomingMessage): string {
  const given = raw.headers['x-request-id']
  return typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID()
}

/**
 * Whether `log` writes lines at `level`: pino tells; Fastify's logger when logging is off
 * (`logger: false`) has neither `isLevelEnabled` nor a level, and writes nothing.
 */
function writes(log: FastifyBaseLogger, level: 'info' | 'error'): boolean {
  const { isLevelEnabled } = log as { isLevelEnabled?: (level: string) => boolean }
  return typeof isLevelEnabled === 'function' ? isLevelEnabled.call(log, level) : log.level !== undefined
}

/** Fastify's logController: the arrival at debug, the answer as one line (built only when written). */
export class RequestLog extends LogController {
  incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request')
  }

  requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (!writes(reply.log, error ? 'error' : 'info')) return
    const ms = Math.round(reply.elapsedTime * 10) / 10
    const entry = {
      req: request,
      route: request.routeOptions.url ?? '(no route)',
      res: { statusCode: reply.statusCode },
      responseTime: ms,
      caller: request.caller?.userId ?? null,
      ...(error && { err: error })
    }
    const line = `${request.method} ${redactUrl(request.url)} ${reply.statusCode} ${ms} ms`
    if (error) reply.log.error(entry, `${line}: the answer failed`)
    else reply.log.info(entry, line)
  }
}

async function requestLogPlugin(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    done()
  })
}

export default fp(requestLogPlugin, { name: 'request-log' })
