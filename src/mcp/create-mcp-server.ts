// One MCP server (the SDK's McpServer) acting for one caller: the read tools and export_csv
// always (JXP's names under JXP_COMPAT), the write tools when the configuration allows them
// (MCP_WRITES), server instructions and the guide resource. Built per HTTP request.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { DocumentContext } from '../documents/document-context.ts'
import { registerReadTools } from './read-tools.ts'
import { registerWriteTools } from './write-tools.ts'
import { registerExportTool } from './export-tool.ts'
import { GUIDE_NAME, GUIDE_URI, mcpGuide, mcpInstructions } from './guide.ts'
import { toolNamer } from './tool-names.ts'
import type { ToolLog } from './tool-result.ts'

const MCP_SERVER_INFO = { name: 'quire', version: '1.0.0' }

export function createMcpServer(ctx: DocumentContext, log: ToolLog): McpServer {
  const name = toolNamer(ctx.config)
  const server = new McpServer(MCP_SERVER_INFO, {
    capabilities: { tools: {}, resources: {} },
    instructions: mcpInstructions(ctx.config, name)
  })
  server.registerResource(
    GUIDE_NAME,
    GUIDE_URI,
    {
      title: 'JXP MCP usage guide',
      description: 'How to query this server with its MCP tools',
      mimeType: 'text/markdown'
    },
    async () => ({ contents: [{ uri: GUIDE_URI, mimeType: 'text/markdown', text: mcpGuide(ctx.config, name) }] })
  )
  registerReadTools(server, ctx, log, name)
  registerExportTool(server, ctx, log, name)
  if (ctx.config.mcpWrites) registerWriteTools(server, ctx, log, name)
  return server
}
