// Runs one MCP tool call and turns its outcome into the tool result: the text it produced, or,
// when the service refused (a QuireError), an error result with the same stable code and
// message REST would give; anything else is logged and reported as INTERNAL, without details.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { QuireError } from '../errors.ts'

export type ToolLog = (err: unknown, message: string) => void

export async function runTool(tool: string, log: ToolLog, produce: () => Promise<string>): Promise<CallToolResult> {
  try {
    return { content: [{ type: 'text', text: await produce() }] }
  } catch (err) {
    if (!(err instanceof QuireError)) log(err, `mcp: tool ${tool} failed`)
    const known = err instanceof QuireError ? err : new QuireError('INTERNAL')
    return {
      isError: true,
      content: [
        { type: 'text', text: JSON.stringify({ error: known.code, status: known.status, message: known.message }) }
      ]
    }
  }
}
