// The MCP server's instructions (sent on initialize) and its guide resource (`jxp://guide`,
// named `jxp-guide` as in JXP): how to use the tools, under the names this server gives them.
// A deployment extends them: MCP_INSTRUCTIONS_APPEND adds to the instructions, MCP_GUIDE_FILES
// (Markdown files, read once) to the guide.
import { readFileSync } from 'node:fs'
import type { Config } from '../config.ts'
import type { ToolNamer } from './tool-names.ts'

export const GUIDE_URI = 'jxp://guide'
export const GUIDE_NAME = 'jxp-guide'

const guideFiles = new Map<string, string>()

function guideFile(path: string): string {
  let text = guideFiles.get(path)
  if (text === undefined) guideFiles.set(path, (text = readFileSync(path, 'utf8')))
  return text
}

export function mcpInstructions(config: Config, name: ToolNamer): string {
  const text =
    `Quire serves JSON documents of several models. Call ${name('list_models')} first to see the models you may use, ` +
    `${name('describe_model')} for a model's fields and links, ${name('count')} before ${name('find')} on ` +
    `large collections, ` +
    `${name('export_csv')} for small CSV exports. Read the resource ${GUIDE_NAME} (${GUIDE_URI}) for the query syntax.`
  return config.mcpInstructionsAppend === undefined ? text : `${text}\n\n${config.mcpInstructionsAppend}`
}

export function mcpGuide(config: Config, name: ToolNamer): string {
  const base = `# JXP MCP usage guide (Quire)

Access to the documents the caller's credentials may read, through the tools below; permissions
are those of the REST API.

1. **${name('list_models')}**: the models you may use and your letters (c, r, u, d) on each.
2. **${name('describe_model')}**: a model's fields, required fields, links, indexes and methods.
3. **${name('count')}**: how many documents match a filter; call it before fetching.
4. **${name('find')}**: matching documents, with \`filter\` (a MongoDB filter), \`sort\` (\`-createdAt,name\`),
   \`fields\`, \`limit\` (at most 100) and \`page\`.
5. **${name('export_csv')}**: matching documents as CSV text (no populate).

Never guess model names; always set \`fields\` and a low \`limit\` on large collections.
`
  return [base, ...config.mcpGuideFiles.map(guideFile)].join('\n\n')
}
