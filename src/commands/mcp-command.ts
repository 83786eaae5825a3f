// `quire mcp`: the stdio bridge to a Quire server's MCP endpoint (src/mcp/stdio-bridge.ts),
// for MCP clients that start a command; the server's URL and the credential come from the
// environment (QUIRE_URL, QUIRE_API_KEY or QUIRE_TOKEN), so they stay out of client configs' args.
import type { Command } from 'commander'

const DEFAULT_QUIRE_URL = 'http://127.0.0.1:3000'

export function addMcpCommand(program: Command): void {
  program
    .command('mcp')
    .description(
      "serve MCP on stdin/stdout, forwarding to a Quire server's /mcp (QUIRE_URL, default " +
        DEFAULT_QUIRE_URL +
        '; credential from QUIRE_API_KEY or QUIRE_TOKEN, or none: anonymous)'
    )
    .option('--url <url>', "the Quire server's base URL (overrides QUIRE_URL)")
    .action(async (options: { url?: string }) => {
      const { runStdioBridge, credentialHeaders } = await import('../mcp/stdio-bridge.ts')
      const url = options.url ?? process.env.QUIRE_URL ?? DEFAULT_QUIRE_URL
      await runStdioBridge({
        url,
        headers: credentialHeaders(process.env),
        log: line => process.stderr.write(line + '\n')
      })
    })
}
