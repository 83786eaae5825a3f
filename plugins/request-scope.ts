// Serves every request inside a request scope (src/engines/request-scope.ts) whose signal aborts
// when the client closes its connection before the response is complete.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { runInRequestScope, type RequestScope } from '../src/engines/request-scope.ts'
import { QuireError } from '../src/errors.ts'

async function requestScopePlugin (app: FastifyInstance): Promise<void> {
  const scopes = new WeakMap<FastifyRequest, RequestScope>()
  app.addHook('onRequest', (request, reply, done) => {
    const controller = new AbortController()
    const response = reply.raw
    // Not request.signal: Fastify aborts it as soon as a request body has been read (its 'close').
    response.once('close', () => {
      if (!response.writableEnded) controller.abort(new QuireError('CLIENT_CLOSED'))
    })
    const scope: RequestScope = { signal: controller.signal, client: request.ip, startedAt: performance.now(), answering: () => response.headersSent }
    scopes.set(request, scope)
    runInRequestScope(scope, done)
  })
  // The body is read on the socket's events, outside the scope: enter it again once it is parsed.
  app.addHook('preValidation', (request, reply, done) => {
    const scope = scopes.get(request)
    if (scope) runInRequestScope(scope, done)
    else done()
  })
}

export default fp(requestScopePlugin, { name: 'request-scope' })
