// Bounds the requests one connection may have in flight (received, not yet answered). A client
// that pipelines requests and never reads the answers made the server hold every answer: 20
// connections writing `GET /api/test?limit=100` back to back took the service down for 40 s and
// its memory from 0.9 to 2.1 GB. No browser pipelines and HTTP clients that do keep a few
// requests in flight; a connection with more than LIMITS.requestsInFlightPerConnection is closed,
// and the requests it had sent beyond that are dropped unanswered.
//
// The count is kept in front of Fastify, on the server's `request` event: Node parses a whole
// chunk of pipelined requests at once (about a thousand of them in 64 KB), and each one that
// reached Fastify cost a request, a reply and the hooks before it could be dropped; the flood of
// one-against-all held reads at p99 0.6-2.7 s and the heap at 600 MB that way. Here a request of
// a connection that is over its bound, or already closed, is dropped before Fastify sees it.
// Node still parses the rest of the chunk (a thousand requests) before the connection closes, so
// a client that reconnects at once could keep the server parsing: the client (its address, not
// behind TRUST_PROXY, where the address is the proxy's) then has its new connections closed as
// they arrive for LIMITS.pipeliningShutOutMs. The one-against-all flood of 20 reconnecting
// connections held reads at 12 a second (from 1,500) without it.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { LIMITS } from '../src/validation/limits.ts'
import { clientAddress } from '../src/runtime/client-address.ts'

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void

export interface PipeliningBound {
  /** Requests in flight per connection. */
  limit: number
  /** How long a client whose connection broke the bound has its new connections closed (0: not at all). */
  shutOutMs: number
  /** Told when a connection is closed for breaking the bound. */
  onClosed: () => void
}

/**
 * Puts the bound in front of `server`'s request listeners (Fastify's): they see at most `limit`
 * requests in flight per connection; a connection that sends more is closed, and its client's
 * next connections for `shutOutMs`.
 */
export function boundRequestsInFlight(server: Server, { limit, shutOutMs, onClosed }: PipeliningBound): void {
  const listeners = server.listeners('request') as RequestListener[]
  server.removeAllListeners('request')
  const inFlight = new WeakMap<Socket, number>()
  /** Clients shut out, until when (ms); an entry is dropped at the first connection after it ends. */
  const shutOut = new Map<string, number>()
  const clientOf = (socket: Socket): string => clientAddress(socket.remoteAddress ?? '')
  if (shutOutMs > 0)
    server.on('connection', (socket: Socket) => {
      const client = clientOf(socket)
      const until = shutOut.get(client)
      if (until === undefined) return
      if (Date.now() < until) socket.destroy()
      else shutOut.delete(client)
    })
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket
    if (socket.destroyed) return // nobody to answer: the request ends here
    const count = (inFlight.get(socket) ?? 0) + 1
    if (count > limit) {
      onClosed()
      if (shutOutMs > 0) shutOut.set(clientOf(socket), Date.now() + shutOutMs)
      socket.destroy()
      return
    }
    inFlight.set(socket, count)
    response.once('close', () => inFlight.set(socket, (inFlight.get(socket) ?? 1) - 1))
    for (const listener of listeners) listener(request, response)
  })
}

async function pipeliningLimitPlugin(app: FastifyInstance): Promise<void> {
  const limit = LIMITS.requestsInFlightPerConnection
  const shutOutMs = app.config.trustProxy ? 0 : LIMITS.pipeliningShutOutMs
  boundRequestsInFlight(app.server, {
    limit,
    shutOutMs,
    onClosed: () =>
      app.log.info(
        `a connection had more than ${limit} requests in flight: closed, ` +
          `and its client's new connections for ${shutOutMs} ms`
      )
  })
}

export default fp(pipeliningLimitPlugin, { name: 'pipelining-limit', dependencies: ['config'] })
