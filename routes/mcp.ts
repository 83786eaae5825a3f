// POST /mcp: the MCP server over Streamable HTTP (the official SDK), stateless: every request is
// authenticated by the app's auth plugin like any API request and served by a server built for
// its caller, so no session is kept (nothing for a client to pile up) and a revoked credential
// stops working at once. GET and DELETE (server-initiated streams, ending sessions) are a 405.
import type { FastifyInstance } from 'fastify'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { createMcpServer } from '../src/mcp/create-mcp-server.ts'

/** The largest JSON-RPC request body (a document to create fits; the app's own limit still applies). */
const MCP_BODY_BYTES = 1_048_576

const NOT_ALLOWED = { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP server is stateless, use POST' }, id: null }

export default async function mcpRoutes (app: FastifyInstance): Promise<void> {
  app.post('/mcp', { bodyLimit: Math.min(MCP_BODY_BYTES, app.config.bodyLimitBytes), schema: { hide: true } }, async (request, reply) => {
    const server = createMcpServer(app.documentContext(request), (err, message) => request.log.error({ err }, message))
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    reply.hijack()
    reply.raw.on('close', () => { void transport.close(); void server.close() })
    await server.connect(transport)
    await transport.handleRequest(request.raw, reply.raw, request.body)
  })

  for (const method of ['GET', 'DELETE'] as const) {
    app.route({ method, url: '/mcp', schema: { hide: true }, handler: async (_request, reply) => reply.code(405).header('allow', 'POST').send(NOT_ALLOWED) })
  }
}
