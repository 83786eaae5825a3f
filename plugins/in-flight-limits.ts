// Bounds what one client can make the server hold at once, before any of a request is read.
// Requests per connection: a client that pipelines requests and never reads the answers made the
// server hold every answer (20 connections writing `GET /api/test?limit=100` back to back took the
// service down for 40 s and its memory from 0.9 to 2.1 GB). No browser pipelines and HTTP clients
// that do keep a few requests in flight; a connection with more than
// LIMITS.requestsInFlightPerConnection is closed, and the requests it sent beyond that are dropped.
// That count is kept in front of Fastify, on the server's `request` event: Node parses a whole chunk of
// pipelined requests at once (about a thousand in 64 KB), and each one that reached Fastify cost a
// request, a reply and the hooks before it could be dropped. A client that reconnected at once kept
// the server parsing, so it (its address; not behind TRUST_PROXY, where that is the proxy's) then has
// its new connections closed as they arrive for LIMITS.pipeliningShutOutMs.
// Body bytes per client (src/runtime/client-address.ts), by what they announce (Content-Length;
// BODY_LIMIT_BYTES when chunked): 500 connections each announcing 1 MB and sending all but the
// last byte held 360 MB until REQUEST_TIMEOUT_MS cut them. A request whose body would take its
// client past LIMITS.bodyBytesPerClient is refused (429, connection closed); the client's count
// is dropped once its last request ends.
// Requests running per client while other clients are active: REQUESTS_PER_CLIENT, the others
// wait their turn (src/runtime/fair-share.ts). Streams that stay open (change feeds, WebSockets:
// route config `longLived`) are bounded by CHANGES_MAX_STREAMS_PER_CLIENT instead.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { AsyncResource } from 'node:async_hooks'
import { availableParallelism } from 'node:os'
import { createFairShare, shareOfCores } from '../src/runtime/fair-share.ts'
import { clientAddress } from '../src/runtime/client-address.ts'
import { LIMITS } from '../src/validation/limits.ts'
import { QuireError } from '../src/errors.ts'

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

function limitRequestsPerConnection(app: FastifyInstance): void {
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

/** What to call when a connection closes, by connection: one listener each, however many requests it pipelines. */
const onConnectionClose = new WeakMap<Socket, Set<() => void>>()

/** Calls `then` when `socket` closes, unless the returned function is called first. */
function whenClosed(socket: Socket, then: () => void): () => void {
  let calls = onConnectionClose.get(socket)
  if (calls === undefined) {
    const pending = new Set<() => void>()
    onConnectionClose.set(socket, (calls = pending))
    socket.once('close', () => {
      for (const call of pending) call()
    })
  }
  calls.add(then)
  return () => calls.delete(then)
}

function shareWorkFairly(app: FastifyInstance): void {
  const { requestsPerClient, workers } = app.config
  const perClient = requestsPerClient
    ? () => requestsPerClient
    : shareOfCores(Math.max(1, Math.floor(availableParallelism() / workers)))
  const maxWaiting = LIMITS.requestsWaitingPerClient
  const share = createFairShare({ perClient, maxWaiting, quietMs: LIMITS.clientQuietMs })
  app.addHook('onRequest', (request, reply, done) => {
    if (request.routeOptions.config.longLived) return done()
    let resume: ((err?: Error) => void) | undefined
    let startedAtOnce = false
    const entry = share.enter(clientAddress(request.ip), () => {
      // Its turn came as its connection closed (the requests pipelined on it leave one by one): no work.
      if (resume) return resume(request.raw.socket.destroyed ? new QuireError('CLIENT_CLOSED') : undefined)
      startedAtOnce = true
      done()
    })
    if (!entry.admitted) {
      return done(
        new QuireError('RATE_LIMITED', `Your address has ${maxWaiting} requests waiting for their turn already`, {
          retryAfter: 1
        })
      )
    }
    // The answer's 'close', or its connection's: a pipelined answer still queued behind an earlier
    // one on its connection is told nothing when that connection closes.
    const response = reply.raw
    const forget = whenClosed(request.raw.socket, () => ended())
    const ended = (): void => {
      response.off('close', ended)
      forget()
      if (entry.leave()) resume?.(new QuireError('CLIENT_CLOSED'))
    }
    response.once('close', ended)
    // Waiting: it starts from another request's end, so it continues in its own async context.
    if (!startedAtOnce) {
      const context = new AsyncResource('quire:fair-share-turn')
      resume = (err?: Error) => context.runInAsyncScope(done, undefined, err)
    }
  })
}

async function inFlightLimitsPlugin(app: FastifyInstance): Promise<void> {
  limitRequestsPerConnection(app)
  limitBodyBytesPerClient(app)
  shareWorkFairly(app)
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's answer stays open (a stream): not counted in its client's fair share. */
    longLived?: boolean
  }
}

export default fp(inFlightLimitsPlugin, { name: 'in-flight-limits', dependencies: ['config'] })
