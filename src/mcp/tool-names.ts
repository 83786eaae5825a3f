// The MCP tools' names: Quire's (`find`), or under JXP_COMPAT JXP's (`jxp_find`), so that an
// MCP client configured for a JXP server finds the tools it knows.
import type { Config } from '../config.ts'

export type ToolNamer = (base: string) => string

export function toolNamer(config: Pick<Config, 'jxpCompat'>): ToolNamer {
  return config.jxpCompat ? base => `jxp_${base}` : base => base
}
