// `quire serve --help` lists the settings: every environment variable of the schema
// (src/config-schema.ts), its default and its meaning, so that the command itself says how to
// configure it without a trip to the README.
import { EnvSchema } from '../config-schema.ts'

interface Setting {
  description?: string
  default?: unknown
}

/** The settings as help text: `  NAME (default: x)` then the meaning, indented. */
export function settingsHelp(): string {
  const lines = Object.entries(EnvSchema.properties as Record<string, Setting>).map(([name, setting]) => {
    const fallback = setting.default === undefined ? '' : ` (default: ${String(setting.default)})`
    return `  ${name}${fallback}\n      ${(setting.description ?? '').replaceAll('`', '')}`
  })
  return (
    `\nSettings (environment variables; an unknown QUIRE_* name or a near miss stops the ` +
    `start):\n${lines.join('\n')}\n`
  )
}
