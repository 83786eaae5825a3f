// Security headers on every response (@fastify/helmet with its defaults: a strict
// Content-Security-Policy, nosniff, frame-ancestors 'self', HSTS over HTTPS, ...). Quire is
// often served over plain HTTP on a LAN or localhost, so the CSP does not ask browsers to
// upgrade requests to HTTPS (that would break /docs there).
import fp from 'fastify-plugin'
import helmet from '@fastify/helmet'
import type { FastifyInstance } from 'fastify'

async function securityHeadersPlugin (app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: { directives: { 'upgrade-insecure-requests': null } }
  })
}

export default fp(securityHeadersPlugin, { name: 'security-headers' })
