// The MCP tests' client: the SDK's own Client over Streamable HTTP against a listening app,
// with an Authorization header (or none), and a tool call's text parsed as JSON.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

export interface McpTestClient {
  client: Client
  /** Calls a tool; its JSON text parsed, and whether it was an error result. */
  call: (name: string, args?: Record<string, unknown>) => Promise<{ isError: boolean; body: any }>
  close: () => Promise<void>
}

export async function connectMcp(baseUrl: string, authorization?: string): Promise<McpTestClient> {
  const client = new Client({ name: 'quire-test', version: '1.0.0' })
  const headers: Record<string, string> = authorization === undefined ? {} : { authorization }
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), { requestInit: { headers } }))
  return {
    client,
    call: async (name, args = {}) => {
      const result = await client.callTool({ name, arguments: args })
      const [first] = result.content as Array<{ type: string; text: string }>
      let body: unknown = first?.text
      try {
        body = JSON.parse(first.text)
      } catch {}
      return { isError: result.isError === true, body }
    },
    close: () => client.close()
  }
}
