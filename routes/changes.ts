// The change feed over Server-Sent Events: GET /changes/{model} (optionally with
// filter[...] and showDeleted) and GET /changes/{model}/{id}. Resumes after the
// Last-Event-ID header (or ?lastEventId=). Problems found before the stream starts
// (unknown model, bad filter, no read access, too many streams) are ordinary JSON errors.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { fastifySSE } from '@fastify/sse'
import { DocumentParams, ListQuery, ModelParams } from '../schemas/common.ts'
import { parseFeedParams, withDocumentId } from '../src/changes/feed-params.ts'
import { createSseSink, type SseWriter } from '../src/changes/transports/sse-sink.ts'
import { reauthenticate } from '../plugins/reauthenticate.ts'
import { checkId } from '../src/documents/read-documents.ts'
import type { QueryParams } from '../src/query/parse-list-params.ts'
import { clientAddress } from '../src/runtime/client-address.ts'

/** The stream's position to resume after: the Last-Event-ID header, or ?lastEventId= for clients that cannot set it. */
function lastEventId(request: FastifyRequest, query: QueryParams): { after?: string; rest: QueryParams } {
  const { lastEventId: fromQuery, ...rest } = query
  const header = request.headers['last-event-id']
  const after =
    typeof header === 'string' && header !== ''
      ? header
      : typeof fromQuery === 'string' && fromQuery !== ''
        ? fromQuery
        : undefined
  return { after, rest }
}

/**
 * Writes encoded SSE frames straight to the response (the headers through @fastify/sse first):
 * resolves at once while the socket takes them, else on 'drain'; rejects once the client is gone.
 */
function responseWriter(reply: FastifyReply): SseWriter {
  const { raw } = reply
  return {
    write: chunk =>
      new Promise((resolve, reject) => {
        if (!reply.sse.isConnected || raw.destroyed) {
          reject(new Error('The SSE connection is closed'))
          return
        }
        reply.sse.sendHeaders()
        if (raw.write(chunk)) {
          resolve()
          return
        }
        const settle = (): void => {
          raw.off('drain', settle)
          raw.off('close', settle)
          raw.destroyed ? reject(new Error('The SSE connection closed')) : resolve()
        }
        raw.on('drain', settle)
        raw.on('close', settle)
      }),
    end: () => reply.sse.close()
  }
}

async function openStream(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  params: { model: string; id?: string },
  query: QueryParams
): Promise<void> {
  const model = app.models.get(params.model)
  if (params.id !== undefined) checkId(params.id)
  const { after, rest } = lastEventId(request, query)
  const feed = parseFeedParams(model, rest)
  const sink = createSseSink(responseWriter(reply), app.config.changesQueueBytes)
  reply.sse.onClose(() => sink.close())
  await app.changes.subscribe({
    model,
    filter: params.id === undefined ? feed.filter : withDocumentId(feed.filter, params.id),
    showDeleted: feed.showDeleted,
    after,
    callers: { caller: request.caller, resolve: () => reauthenticate(app.credentials.authenticate, request, reply) },
    client: clientAddress(request.ip),
    sink
  })
  // The stream is committed now: what the hub sends from here on may come after this handler returns.
  reply.sse.sendHeaders()
  reply.sse.keepAlive()
}

export default async function changeRoutes(fastify: FastifyInstance): Promise<void> {
  await fastify.register(fastifySSE)
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const sse = { kind: 'manual', heartbeat: false, serializer: (data: unknown) => String(data) } as const

  app.get(
    '/changes/:model',
    {
      schema: {
        summary: "Follow changes to {model} documents (Server-Sent Events; the list's filters apply)",
        params: ModelParams,
        querystring: ListQuery
      },
      sse,
      config: { longLived: true }
    },
    async (request, reply) => {
      await openStream(app, request, reply, request.params, request.query)
    }
  )

  app.get(
    '/changes/:model/:id',
    {
      schema: {
        summary: 'Follow changes to one {model} document (Server-Sent Events)',
        params: DocumentParams,
        querystring: ListQuery
      },
      sse,
      config: { longLived: true }
    },
    async (request, reply) => {
      await openStream(app, request, reply, request.params, request.query)
    }
  )
}
