// `quire mcp`: an MCP server on stdin/stdout that forwards every message, unchanged, to a Quire
// server's /mcp over Streamable HTTP (both ends are the SDK's transports), for MCP clients that
// only speak stdio. A request the server cannot take (refused credentials, server down) gets a
// JSON-RPC error reply, so the client hears why instead of waiting.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'

export interface BridgeOptions {
  /** The Quire server's base URL (its /mcp is the endpoint). */
  url: string
  /** Headers carrying the credential (an API key or a bearer token), or none: anonymous. */
  headers: Record<string, string>
  log: (line: string) => void
}

/** The credential headers named by the environment: QUIRE_API_KEY (X-API-Key) or QUIRE_TOKEN (Bearer). */
export function credentialHeaders(env: NodeJS.ProcessEnv): Record<string, string> {
  if (env.QUIRE_API_KEY) return { 'x-api-key': env.QUIRE_API_KEY }
  if (env.QUIRE_TOKEN) return { authorization: `Bearer ${env.QUIRE_TOKEN}` }
  return {}
}

/** A JSON-RPC error reply to `message` when it is a request (it has an id). */
function errorReply(message: JSONRPCMessage, text: string): JSONRPCMessage | undefined {
  if (!('id' in message) || !('method' in message)) return undefined
  return { jsonrpc: '2.0', id: message.id, error: { code: -32000, message: text } }
}

/** Runs the bridge until stdin closes. */
export async function runStdioBridge({ url, headers, log }: BridgeOptions): Promise<void> {
  const endpoint = new URL('/mcp', url)
  const stdio = new StdioServerTransport()
  const http = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers } })
  http.onmessage = message => {
    void stdio.send(message)
  }
  http.onerror = err => {
    log(`quire mcp: ${err.message}`)
  }
  stdio.onmessage = message => {
    http.send(message).catch((err: Error) => {
      log(`quire mcp: ${endpoint.href}: ${err.message}`)
      const reply = errorReply(message, `Quire at ${endpoint.href} refused or could not be reached: ${err.message}`)
      if (reply) void stdio.send(reply)
    })
  }
  const closed = new Promise<void>(resolve => {
    stdio.onclose = resolve
  })
  process.stdin.once('end', () => {
    void stdio.close()
  })
  await http.start()
  await stdio.start()
  await closed
  await http.close()
}
