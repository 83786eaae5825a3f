// Security headers on every response (helmet with its defaults: a strict
// Content-Security-Policy, nosniff, frame-ancestors 'self', HSTS over HTTPS, ...). Quire is
// often served over plain HTTP on a LAN or localhost, so the CSP does not ask browsers to
// upgrade requests to HTTPS (that would break /docs there). The middleware is built once:
// @fastify/helmet rebuilt it (parsing the CSP directives) on every request, ~6% of a request's CPU.
import fp from 'fastify-plugin'
import helmet from 'helmet'
import type { FastifyInstance } from 'fastify'

async function securityHeadersPlugin (app: FastifyInstance): Promise<void> {
  const setHeaders = helmet({ contentSecurityPolicy: { directives: { 'upgrade-insecure-requests': null } } })
  app.addHook('onRequest', (request, reply, done) => {
    setHeaders(request.raw, reply.raw, err => { done(err as Error | undefined) })
  })
}

export default fp(securityHeadersPlugin, { name: 'security-headers' })
