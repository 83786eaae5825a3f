// The `provider` of a login or refresh answer: as in JXP, the server's own URL (JXP's
// clients keep it to know which server issued the session). Taken from the request, so it
// is the address the client used (behind a proxy: its X-Forwarded-Proto/-Host when TRUST_PROXY
// believes them).
import type { FastifyRequest } from 'fastify'

export function providerOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`
}
