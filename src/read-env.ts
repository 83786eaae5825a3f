// Checks the environment against the configuration schema (env-schema, src/config-schema.ts):
// typed values with their defaults, or a ConfigError whose one line names the variable at fault.
import envSchema from 'env-schema'
import { closest, distance } from 'fastest-levenshtein'
import { Ajv, type ErrorObject } from 'ajv'
import { StartupError } from './startup-error.ts'
import { EnvSchema, MISSPELLINGS, type Env, type EnvName } from './config-schema.ts'

/** A configuration mistake: its message is one line naming the variable. */
export class ConfigError extends StartupError {
  constructor(message: string) {
    super(`configuration: ${message}`)
  }
}

const KNOWN = new Set(Object.keys(EnvSchema.properties))
const squash = (name: string): string => name.toUpperCase().replace(/_/g, '')
const BY_SQUASHED = new Map([...KNOWN].map(name => [squash(name), name]))

/** A Quire variable one typo away from `name` (names of 6 characters or more, so that short unrelated ones pass). */
function oneTypoFrom(name: string): string | undefined {
  if (name.length < 6) return undefined
  const near = closest(name, [...KNOWN])
  return distance(name, near) <= 1 ? near : undefined
}

/**
 * The variables of `quire mcp` (src/commands/mcp-command.ts), a client: a server started where they are set ignores
 * them.
 */
const CLIENT_VARIABLES = new Set(['QUIRE_URL', 'QUIRE_API_KEY', 'QUIRE_TOKEN'])

/** Set by `quire serve`'s primary on its workers (src/cluster/cluster-role.ts), not by operators. */
const INTERNAL_VARIABLES = new Set(['QUIRE_CLUSTER_WORKER'])

/** Why a variable that is not a Quire setting is refused, or undefined when it is none of ours. */
function unknownReason(name: string): string | undefined {
  if (CLIENT_VARIABLES.has(name) || INTERNAL_VARIABLES.has(name)) return undefined
  const meant = MISSPELLINGS[name] ?? BY_SQUASHED.get(squash(name)) ?? oneTypoFrom(name)
  if (meant) return `${name} is not a Quire setting: did you mean ${meant}?`
  if (name.startsWith('QUIRE_')) return `${name} is not a Quire setting (see the README's configuration table)`
  return undefined
}

type Property = { type?: string; minimum?: number; maximum?: number; enum?: string[]; hint?: string }

/** What a variable's value must be, said from its schema. */
function expectation(property: Property): string {
  if (property.enum) return `must be one of ${property.enum.join(', ')}`
  if (property.type === 'boolean') return 'must be true or false'
  if (property.hint) return property.hint
  if (property.type === 'integer') {
    const range =
      property.maximum === undefined ? `${property.minimum} or more` : `from ${property.minimum} to ${property.maximum}`
    return `must be a whole number, ${range}`
  }
  return 'is not valid'
}

/** One line naming every variable at fault; numbers and words are quoted back, text (URLs, secrets) is not. */
function describeFaults(names: string[], values: Record<string, string>): string {
  return [...new Set(names)]
    .map(name => {
      const property = EnvSchema.properties[name as EnvName] as Property
      const shown = property.type === 'string' && !property.enum ? '' : ` (got ${JSON.stringify(values[name])})`
      return `${name} ${expectation(property)}${shown}`
    })
    .join('; ')
}

/** Whole-number variables written other than as plain digits (ajv's coercion would take " 8", "0x8" or "8e1"). */
function malformedNumbers(values: Record<string, string>): string[] {
  return Object.keys(values).filter(
    name => (EnvSchema.properties[name as EnvName] as Property).type === 'integer' && !/^\d+$/.test(values[name])
  )
}

let checker: Ajv | undefined

/**
 * One Ajv for every call (a new one per call costs tens of milliseconds, and tests load the
 * configuration often): env-schema's own options (coercion, defaults, its separator keyword),
 * plus the schema's `hint` keyword.
 */
function envChecker(): Ajv {
  checker ??= new Ajv({
    allErrors: true,
    removeAdditional: true,
    useDefaults: true,
    coerceTypes: true,
    allowUnionTypes: true,
    addUsedSchema: false,
    keywords: [envSchema.keywords.separator, { keyword: 'hint', schemaType: 'string' }]
  })
  return checker
}

/** The checked, typed Quire variables of `env`; an empty value counts as unset. */
export function readEnv(env: NodeJS.ProcessEnv): Env {
  for (const name of Object.keys(env)) {
    const reason = KNOWN.has(name) || env[name] === undefined ? undefined : unknownReason(name)
    if (reason) throw new ConfigError(reason)
  }
  const values = Object.fromEntries([...KNOWN].filter(name => env[name]).map(name => [name, env[name] as string]))
  let checked: Env
  try {
    checked = envSchema<Env>({ schema: EnvSchema, data: { ...values }, env: false, ajv: envChecker() })
  } catch (err) {
    const names = ((err as { errors?: ErrorObject[] }).errors ?? []).map(e => e.instancePath.slice(1))
    throw new ConfigError(describeFaults([...malformedNumbers(values), ...names], values))
  }
  const malformed = malformedNumbers(values)
  if (malformed.length) throw new ConfigError(describeFaults(malformed, values))
  if (checked.DEFAULT_PAGE_SIZE > checked.MAX_PAGE_SIZE)
    throw new ConfigError(
      `DEFAULT_PAGE_SIZE (${checked.DEFAULT_PAGE_SIZE}) must not exceed MAX_PAGE_SIZE (${checked.MAX_PAGE_SIZE})`
    )
  return checked
}
