// @fastify/websocket for the whole app, registered before the hooks that may refuse a request
// (load shedding, authentication): its own onRequest hook must run first, or a refused upgrade
// request (a 401) leaves its socket open and holds the server's close.
import fp from 'fastify-plugin'
import fastifyWebsocket from '@fastify/websocket'
import type { FastifyInstance } from 'fastify'

/** The largest message a client may send (a subscription with its filter fits easily). */
export const MAX_MESSAGE_BYTES = 65_536

async function websocketPlugin(app: FastifyInstance): Promise<void> {
  await app.register(fastifyWebsocket, { options: { maxPayload: MAX_MESSAGE_BYTES } })
}

export default fp(websocketPlugin, { name: 'websocket' })
