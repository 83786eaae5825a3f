// Serves every request inside a request scope (src/runtime/request-scope.ts) whose signal aborts
// when the client closes its connection before the response is complete. The signal is made when
// first asked for (most requests never ask): one asked for after the client left is already aborted.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { ServerResponse } from 'node:http'
import { runInRequestScope, NEVER_ABORTED, type RequestScope } from '../src/runtime/request-scope.ts'
import { QuireError } from '../src/errors.ts'
import { clientAddress } from '../src/runtime/client-address.ts'

const clientClosed = (): QuireError => new QuireError('CLIENT_CLOSED')

/** The signal of the request `response` answers, made now. */
function signalOf(response: ServerResponse): AbortSignal {
  if (response.destroyed) return response.writableEnded ? NEVER_ABORTED : AbortSignal.abort(clientClosed())
  const controller = new AbortController()
  // Not request.signal: Fastify aborts it as soon as a request body has been read (its 'close').
  response.once('close', () => {
    if (!response.writableEnded) controller.abort(clientClosed())
  })
  return controller.signal
}

async function requestScopePlugin(app: FastifyInstance): Promise<void> {
  // A property of the request rather than a WeakMap entry: a WeakMap with an entry for every
  // request in flight is work for every garbage collection.
  app.decorateRequest('requestScope', null)
  app.addHook('onRequest', (request, reply, done) => {
    const response = reply.raw
    let signal: AbortSignal | undefined
    const scope: RequestScope = {
      get signal() {
        return (signal ??= signalOf(response))
      },
      client: clientAddress(request.ip),
      // Read only when a statement writes (the change capture's actor): no hook of its own.
      get caller() {
        return request.caller
      },
      startedAt: performance.now(),
      answering: () => response.headersSent
    }
    request.requestScope = scope
    runInRequestScope(scope, done)
  })
  // The body is read on the socket's events, outside the scope: enter it again once it is parsed.
  app.addHook('preValidation', (request, _reply, done) => {
    const scope = request.requestScope
    if (scope) runInRequestScope(scope, done)
    else done()
  })
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's scope, from its first hook on (null before). */
    requestScope: RequestScope | null
  }
}

export default fp(requestScopePlugin, { name: 'request-scope' })
