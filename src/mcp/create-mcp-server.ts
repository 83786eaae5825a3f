// One MCP server (the SDK's McpServer) acting for one caller: the read tools always, the
// write tools when the configuration allows them (MCP_WRITES). Built per HTTP request.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { DocumentContext } from '../documents/document-context.ts'
import { registerReadTools } from './read-tools.ts'
import { registerWriteTools } from './write-tools.ts'
import type { ToolLog } from './tool-result.ts'

const MCP_SERVER_INFO = { name: 'quire', version: '1.0.0' }

export function createMcpServer(ctx: DocumentContext, log: ToolLog): McpServer {
  const server = new McpServer(MCP_SERVER_INFO, { capabilities: { tools: {} } })
  registerReadTools(server, ctx, log)
  if (ctx.config.mcpWrites) registerWriteTools(server, ctx, log)
  return server
}
