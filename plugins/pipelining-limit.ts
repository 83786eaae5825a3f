// Bounds the requests one connection may have in flight (received, not yet answered). A client
// that pipelines requests and never reads the answers made the server hold every answer: 20
// connections writing `GET /api/test?limit=100` back to back took the service down for 40 s and
// its memory from 0.9 to 2.1 GB. No browser pipelines and HTTP clients that do keep a few
// requests in flight; a connection with more than LIMITS.requestsInFlightPerConnection is closed,
// and the requests it had sent beyond that are dropped unanswered.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Socket } from 'node:net'
import { LIMITS } from '../src/validation/limits.ts'

async function pipeliningLimitPlugin(app: FastifyInstance): Promise<void> {
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

export default fp(pipeliningLimitPlugin, { name: 'pipelining-limit' })
