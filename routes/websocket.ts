// GET /websocket: JXP's WebSocket protocol over the change hub (src/changes/transports/jxp-socket.ts),
// with @fastify/websocket (plugins/websocket.ts). The upgrade request is authenticated like any request (a bad
// credential is a 401 before the upgrade), and a browser page of another origin than the server's
// or CORS_ORIGINS' is a 403; an `auth` message may present other credentials. One client address
// holds at most CHANGES_MAX_STREAMS_PER_CLIENT sockets, subscribed or not (503 TOO_MANY_STREAMS),
// and sends at most LIMITS.socketMessagesPerSecond messages over all of them (more: closed, 1008).
// A socket closed for breaking a bound is read no more and cut a second after its close frame.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { WebSocket } from '@fastify/websocket'
import type { Caller } from '../src/auth/caller.ts'
import { createJxpSocket } from '../src/changes/transports/jxp-socket.ts'
import type { CallerSource } from '../src/changes/subscription.ts'
import { QuireError } from '../src/errors.ts'
import { reauthenticate } from '../plugins/reauthenticate.ts'
import { isAllowedOrigin } from '../src/changes/transports/socket-origin.ts'
import { clientAddress } from '../src/runtime/client-address.ts'
import { createMessageRate } from '../src/runtime/message-rate.ts'
import { LIMITS } from '../src/validation/limits.ts'

const MAX_SUBSCRIPTIONS = 50
/** How long a socket closed for breaking a bound has, after its close frame, before it is cut. */
const CLOSE_GRACE_MS = 1000

/**
 * Closes a socket that broke a bound (too many messages, replies not read). ws alone would keep
 * reading the socket until the client answers the close frame, for up to 30 s: a flooder that
 * never answers kept the server parsing its messages (12 M in 10 s from 6 sockets) and holding
 * its unread replies. Here the socket is read no more, and cut after CLOSE_GRACE_MS.
 */
function closeAndCut(socket: WebSocket, code: number, reason: string): void {
  socket.pause()
  socket.close(code, reason)
  const cut = setTimeout(() => socket.terminate(), CLOSE_GRACE_MS)
  socket.once('close', () => clearTimeout(cut))
}

/**
 * The credentials of an `auth` message ({email, password}, {apikey} or {token}), checked now and for every later event.
 */
async function messageCredentials(
  app: FastifyInstance,
  data: Record<string, unknown>,
  ip: string
): Promise<CallerSource> {
  const { passwords, sessions } = app.credentials
  const text = (value: unknown): value is string => typeof value === 'string' && value !== ''
  let resolve: (() => Promise<Caller>) | undefined
  if (text(data.apikey)) resolve = () => sessions.callerForApiKey(data.apikey as string)
  else if (text(data.token)) resolve = () => sessions.callerForToken(data.token as string)
  else if (text(data.email) && text(data.password))
    resolve = () => passwords.callerFor(data.email as string, data.password as string, ip)
  if (!resolve) throw new QuireError('AUTH_FAILED', 'Unable to authenticate')
  return { caller: await resolve(), resolve }
}

export default async function websocketRoutes(app: FastifyInstance): Promise<void> {
  const replies = new WeakMap<FastifyRequest, FastifyReply>()
  const socketsByAddress = new Map<string, number>()
  const perClient = app.config.changesMaxStreamsPerClient
  const messages = createMessageRate(LIMITS.socketMessagesPerSecond, LIMITS.socketMessageBurst)

  app.get(
    '/websocket',
    {
      websocket: true,
      config: { longLived: true },
      schema: { summary: "JXP's WebSocket protocol: subscribe to a model's changes (see docs/changes.md)", hide: true },
      onRequest: async request => {
        if (!isAllowedOrigin(request.headers.origin, request.headers.host, app.config.corsOrigins)) {
          throw new QuireError('FORBIDDEN', 'WebSocket connections from this origin are not allowed (see CORS_ORIGINS)')
        }
        if ((socketsByAddress.get(clientAddress(request.ip)) ?? 0) >= perClient) {
          throw new QuireError(
            'TOO_MANY_STREAMS',
            `At most ${perClient} WebSocket connections per client address are open at once`
          )
        }
      },
      preHandler: async (request, reply) => {
        replies.set(request, reply)
      }
    },
    (socket, request) => {
      const client = clientAddress(request.ip)
      socketsByAddress.set(client, (socketsByAddress.get(client) ?? 0) + 1)
      const session = createJxpSocket({
        hub: app.changes,
        registry: app.models,
        callers: {
          caller: request.caller,
          resolve: () => reauthenticate(app.credentials.authenticate, request, replies.get(request)!)
        },
        authenticate: data => messageCredentials(app, data, request.ip),
        send: text =>
          new Promise((resolve, reject) => {
            socket.send(text, err => {
              if (err) reject(err)
              else resolve()
            })
          }),
        close: (code, reason) => closeAndCut(socket, code, reason),
        client,
        queueBytes: app.config.changesQueueBytes,
        maxSubscriptions: MAX_SUBSCRIPTIONS,
        log: msg => request.log.warn(msg)
      })
      const leave = messages.open(client)
      let flooding = false
      socket.on('message', (data, isBinary) => {
        if (flooding) return
        if (!messages.take(client)) {
          flooding = true
          closeAndCut(socket, 1008, `Too many messages: at most ${LIMITS.socketMessagesPerSecond} a second per client`)
          return
        }
        void session.receive(isBinary ? '' : String(data))
      })
      socket.on('close', () => {
        leave()
        const left = (socketsByAddress.get(client) ?? 1) - 1
        if (left > 0) socketsByAddress.set(client, left)
        else socketsByAddress.delete(client)
        session.closed()
      })
    }
  )
}
