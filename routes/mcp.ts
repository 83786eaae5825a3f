// POST /mcp: the MCP server over Streamable HTTP (the official SDK), stateless: every request is
// authenticated by the app's auth plugin like any API request and served by a server built for
// its caller, so no session is kept (nothing for a client to pile up) and a revoked credential
// stops working at once. GET and DELETE (server-initiated streams, ending sessions) are a 405.
// The SDK writes the answer itself: the headers the app's hooks set (security, CORS) go with it.
import type { FastifyInstance } from 'fastify'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { createMcpServer } from '../src/mcp/create-mcp-server.ts'

/** The largest JSON-RPC request body (a document to create fits; the app's own limit still applies). */
const MCP_BODY_BYTES = 1_048_576

/** Messages in one JSON-RPC batch (the SDK takes 100): one request may not start more tool calls than this. */
export const MCP_MAX_BATCH = 10

const rpcError = (code: number, message: string): object => ({ jsonrpc: '2.0', error: { code, message }, id: null })
const NOT_ALLOWED = rpcError(-32000, 'Method not allowed: this MCP server is stateless, use POST')

export default async function mcpRoutes(app: FastifyInstance): Promise<void> {
  app.post(
    '/mcp',
    { bodyLimit: Math.min(MCP_BODY_BYTES, app.config.bodyLimitBytes), schema: { hide: true } },
    async (request, reply) => {
      if (Array.isArray(request.body) && request.body.length > MCP_MAX_BATCH) {
        return reply
          .code(400)
          .send(rpcError(-32600, `Invalid Request: a batch holds at most ${MCP_MAX_BATCH} messages`))
      }
      // JXP's MCP answers 401 without credentials; Quire's serves anonymous callers what REST would.
      if (app.config.jxpCompat && request.caller.userId === undefined && !request.caller.admin) {
        return reply.code(401).send(rpcError(-32001, 'Unauthorized: send an API key (X-API-Key) or other credentials'))
      }
      const server = createMcpServer(app.documentContext(request), (err, message) =>
        request.log.error({ err }, message)
      )
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
      reply.hijack()
      for (const [name, value] of Object.entries(reply.getHeaders()))
        if (value !== undefined) reply.raw.setHeader(name, value)
      reply.raw.on('close', () => {
        void transport.close()
        void server.close()
      })
      await server.connect(transport)
      await transport.handleRequest(request.raw, reply.raw, request.body)
    }
  )

  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/mcp',
      schema: { hide: true },
      handler: async (_request, reply) => reply.code(405).header('allow', 'POST').send(NOT_ALLOWED)
    })
  }
}
