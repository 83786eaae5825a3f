// Bounds what one client can make the server hold at once, before any of a request is read.
// Requests per connection: a client that pipelines requests and never reads the answers made the
// server hold every answer (20 connections writing `GET /api/test?limit=100` back to back took the
// service down for 40 s and its memory from 0.9 to 2.1 GB). No browser pipelines and HTTP clients
// that do keep a few requests in flight; a connection with more than
// LIMITS.requestsInFlightPerConnection is closed, and the requests it sent beyond that are dropped.
// Body bytes per client (src/runtime/client-address.ts), by what they announce (Content-Length;
// BODY_LIMIT_BYTES when chunked): 500 connections each announcing 1 MB and sending all but the
// last byte held 360 MB until REQUEST_TIMEOUT_MS cut them. A request whose body would take its
// client past LIMITS.bodyBytesPerClient is refused (429, connection closed); the client's count
// is dropped once its last request ends.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Socket } from 'node:net'
import { clientAddress } from '../src/runtime/client-address.ts'
import { LIMITS } from '../src/validation/limits.ts'
import { QuireError } from '../src/errors.ts'

function limitRequestsPerConnection(app: FastifyInstance): void {
  const inFlight = new WeakMap<Socket, number>()
  app.addHook('onRequest', (request, reply, done) => {
    const socket = request.raw.socket
    const count = (inFlight.get(socket) ?? 0) + 1
    inFlight.set(socket, count)
    if (count > LIMITS.requestsInFlightPerConnection && !socket.destroyed) {
      request.log.info(`a connection had more than ${LIMITS.requestsInFlightPerConnection} requests in flight: closed`)
      socket.destroy()
    }
    if (socket.destroyed) return reply.hijack() // nobody to answer: the request ends here
    done()
  })
  app.addHook('onResponse', (request, _reply, done) => {
    const socket = request.raw.socket
    inFlight.set(socket, (inFlight.get(socket) ?? 1) - 1)
    done()
  })
}

function limitBodyBytesPerClient(app: FastifyInstance): void {
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

async function inFlightLimitsPlugin(app: FastifyInstance): Promise<void> {
  limitRequestsPerConnection(app)
  limitBodyBytesPerClient(app)
}

export default fp(inFlightLimitsPlugin, { name: 'in-flight-limits', dependencies: ['config'] })
