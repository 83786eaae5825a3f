// Bounds the request bodies one client (src/runtime/client-address.ts) may have on their way
// in at once, by what they announce (Content-Length; BODY_LIMIT_BYTES when chunked). Found by an
// outside review: 500 connections each announcing 1 MB and sending all but the last byte held
// 360 MB until REQUEST_TIMEOUT_MS cut them. A request whose body would take its client past
// LIMITS.bodyBytesPerClient is refused (429, connection closed) before any of it is read; the
// client's count is dropped once its last request ends.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { clientAddress } from '../src/runtime/client-address.ts'
import { LIMITS } from '../src/validation/limits.ts'
import { QuireError } from '../src/errors.ts'

async function bodyBudgetPlugin(app: FastifyInstance): Promise<void> {
  const held = new Map<string, number>()
  const release = (client: string, bytes: number): void => {
    const left = (held.get(client) ?? bytes) - bytes
    if (left > 0) held.set(client, left)
    else held.delete(client)
  }
  app.addHook('onRequest', (request, reply, done) => {
    const headers = request.headers
    const announced =
      headers['content-length'] !== undefined
        ? Number(headers['content-length'])
        : headers['transfer-encoding'] !== undefined
          ? app.config.bodyLimitBytes
          : 0
    if (!(announced > 0)) return done()
    const bytes = Math.min(announced, app.config.bodyLimitBytes)
    const client = clientAddress(request.ip)
    if ((held.get(client) ?? 0) + bytes > LIMITS.bodyBytesPerClient) {
      reply.header('connection', 'close')
      return done(
        new QuireError(
          'RATE_LIMITED',
          `Your address is sending more than ${LIMITS.bodyBytesPerClient} bytes of request bodies at ` +
            `once: finish those first`,
          { retryAfter: 1 }
        )
      )
    }
    held.set(client, (held.get(client) ?? 0) + bytes)
    request.raw.once('close', () => release(client, bytes))
    done()
  })
}

export default fp(bodyBudgetPlugin, { name: 'body-budget', dependencies: ['config'] })
