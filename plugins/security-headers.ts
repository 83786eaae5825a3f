// Security headers on every response (helmet with its defaults: a strict
// Content-Security-Policy, nosniff, frame-ancestors 'self', HSTS, ...). Quire is often served over
// plain HTTP on a LAN or localhost, so the CSP does not ask browsers to upgrade requests to HTTPS
// (that would break /docs there). These headers depend on nothing in the request: helmet sets them
// once, on a stand-in response, and each reply copies the result (running helmet's middleware on
// every request cost ~4% of a create's CPU; @fastify/helmet, which also re-parsed the CSP, ~6%).
import fp from 'fastify-plugin'
import helmet from 'helmet'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyInstance } from 'fastify'

/** The headers helmet's middleware sets, collected from a stand-in response. */
export function helmetHeaders(): Record<string, string> {
  const headers: Record<string, string> = {}
  const response = {
    setHeader: (name: string, value: unknown) => {
      headers[name.toLowerCase()] = String(value)
    },
    removeHeader: () => {}
  }
  const setHeaders = helmet({ contentSecurityPolicy: { directives: { 'upgrade-insecure-requests': null } } })
  setHeaders({} as IncomingMessage, response as unknown as ServerResponse, err => {
    if (err) throw err
  })
  return headers
}

async function securityHeadersPlugin(app: FastifyInstance): Promise<void> {
  const headers = helmetHeaders()
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers)
    done()
  })
}

export default fp(securityHeadersPlugin, { name: 'security-headers' })
