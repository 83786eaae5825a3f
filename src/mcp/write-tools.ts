// The MCP server's write tools (offered only when MCP_WRITES=true): create, update and delete
// one document, through the same document services as REST's POST, PUT and DELETE
// /api/{model}: the caller's rights, the validation step and the model's hooks all apply.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import * as z from 'zod'
import type { DocumentContext } from '../documents/document-context.ts'
import { createDocument, updateDocument, type WriteResult } from '../documents/write-documents.ts'
import { deleteDocument } from '../documents/delete-document.ts'
import { boundValue } from './bound-output.ts'
import type { ToolNamer } from './tool-names.ts'
import { runTool, type ToolLog } from './tool-result.ts'

const modelName = z.string().min(1).max(64).describe("the model's name")
const id = z.string().max(64).describe("the document's _id (24 hexadecimal characters)")
const fields = z.record(z.string(), z.unknown()).describe("the document's fields")

/** A write's outcome as the tool's text: the message and the document as the caller may see it. */
function writeText(result: WriteResult): string {
  return boundValue({
    message: result.message,
    document: result.data === undefined ? undefined : (JSON.parse(result.data) as unknown)
  })
}

export function registerWriteTools(server: McpServer, ctx: DocumentContext, log: ToolLog, name: ToolNamer): void {
  const { registry } = ctx

  server.registerTool(
    name('create'),
    {
      description: 'Creates a document (the caller becomes its owner)',
      inputSchema: { model: modelName, document: fields }
    },
    args =>
      runTool(name('create'), log, async () =>
        writeText(await createDocument(ctx, registry.get(args.model), args.document, false))
      )
  )

  server.registerTool(
    name('update'),
    { description: 'Updates the given top-level fields of a document', inputSchema: { model: modelName, id, fields } },
    args =>
      runTool(name('update'), log, async () =>
        writeText(await updateDocument(ctx, registry.get(args.model), args.id, args.fields, false))
      )
  )

  server.registerTool(
    name('delete'),
    {
      description:
        'Deletes a document (soft delete where the model keeps deleted documents; permanent: true deletes it for good)',
      inputSchema: { model: modelName, id, permanent: z.boolean().optional() }
    },
    args =>
      runTool(name('delete'), log, async () =>
        writeText(
          await deleteDocument(ctx, registry.get(args.model), args.id, {
            permanent: args.permanent === true,
            cascade: false
          })
        )
      )
  )
}
