// Sign-in providers from the environment: OAUTH_PROVIDERS names them, and each has its own
// OAUTH_<NAME>_* variables (issuer or endpoints, client id and secret, scopes, whether unknown
// users may be created). Every OAUTH_ variable is checked here: a misspelt or orphaned one is a
// ConfigError naming it, as for the other settings (src/read-env.ts).
import { closest, distance } from 'fastest-levenshtein'
import { ConfigError } from '../read-env.ts'

export interface OAuthProvider {
  /** Lower-case letters and digits: the `{provider}` of /login/oauth/{provider}. */
  name: string
  /** OpenID Connect: the issuer, whose discovery document names the endpoints. */
  issuer?: string
  /** Plain OAuth 2 (no issuer): the endpoints themselves. */
  endpoints?: { authorization: string; token: string; userinfo: string }
  clientId: string
  clientSecret: string
  scopes: string
  /** A verified email that matches no user creates one (otherwise the sign-in fails `no_user`). */
  createUsers: boolean
}

export interface OAuthSettings {
  /** Where the browser goes after a sign-in, with `?token=` (the one-time sign-in token). */
  successUrl?: string
  /** Where it goes after a failed one, with `?error=&provider=`. */
  failureUrl?: string
  providers: OAuthProvider[]
}

/** The variables each provider may have, after OAUTH_<NAME>_. */
const KEYS = [
  'ISSUER',
  'AUTHORIZATION_URL',
  'TOKEN_URL',
  'USERINFO_URL',
  'CLIENT_ID',
  'CLIENT_SECRET',
  'SCOPES',
  'CREATE_USERS'
] as const
type Key = (typeof KEYS)[number]

/** Read by the configuration schema (src/config-schema.ts). */
const SHARED = new Set(['OAUTH_PROVIDERS', 'OAUTH_SUCCESS_URL', 'OAUTH_FAILURE_URL'])

/** Provider names that would clash with the routes. */
const RESERVED = new Set(['callback', 'token'])

/** https, or http to this machine only (a provider in a test or on a developer's machine). */
function checkProviderUrl(name: string, value: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ConfigError(`${name} must be a URL (got "${value}")`)
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    throw new ConfigError(`${name} must be an https:// URL (http:// only on localhost)`)
  return value
}

/** Why `variable` (an OAUTH_ name that is not a shared one) is refused, or its provider and key. */
function splitName(variable: string, names: Set<string>): { provider: string; key: Key } {
  const rest = variable.slice('OAUTH_'.length)
  const key = KEYS.find(k => rest.endsWith(`_${k}`))
  const provider = key ? rest.slice(0, -key.length - 1).toLowerCase() : undefined
  if (key && provider && names.has(provider)) return { provider, key }
  if (key && provider) throw new ConfigError(`${variable}: OAUTH_PROVIDERS does not name a provider "${provider}"`)
  const near = closest(rest.replace(/^[A-Z0-9]+_/, ''), [...KEYS])
  const hint =
    distance(rest.replace(/^[A-Z0-9]+_/, ''), near) <= 2
      ? `: did you mean OAUTH_<NAME>_${near}?`
      : ` (each provider has OAUTH_<NAME>_${KEYS.join(', _')})`
  throw new ConfigError(`${variable} is not a Quire setting${hint}`)
}

function readProvider(name: string, values: Partial<Record<Key, string>>): OAuthProvider {
  const v = (key: Key): string | undefined => values[key]
  const label = (key: Key): string => `OAUTH_${name.toUpperCase()}_${key}`
  const required = (key: Key): string => {
    const value = v(key)
    if (value === undefined) throw new ConfigError(`${label(key)} must be set (OAUTH_PROVIDERS names ${name})`)
    return value
  }
  const endpoints = (['AUTHORIZATION_URL', 'TOKEN_URL', 'USERINFO_URL'] as const).filter(key => v(key) !== undefined)
  const issuer = v('ISSUER')
  if (issuer !== undefined && endpoints.length > 0)
    throw new ConfigError(
      `${label('ISSUER')} and ${label(endpoints[0])}: set the issuer (OpenID Connect discovery) or the ` +
        `three endpoints, not both`
    )
  if (issuer === undefined && endpoints.length < 3)
    throw new ConfigError(
      `${label('ISSUER')} must be set, or ${label('AUTHORIZATION_URL')}, ${label('TOKEN_URL')} ` +
        `and ${label('USERINFO_URL')}`
    )
  const create = v('CREATE_USERS') ?? 'false'
  if (create !== 'true' && create !== 'false')
    throw new ConfigError(`${label('CREATE_USERS')} must be true or false (got "${create}")`)
  const url = (key: Key): string => checkProviderUrl(label(key), required(key))
  return {
    name,
    ...(issuer !== undefined
      ? { issuer: url('ISSUER') }
      : {
          endpoints: { authorization: url('AUTHORIZATION_URL'), token: url('TOKEN_URL'), userinfo: url('USERINFO_URL') }
        }),
    clientId: required('CLIENT_ID'),
    clientSecret: required('CLIENT_SECRET'),
    scopes: v('SCOPES') ?? (issuer !== undefined ? 'openid email profile' : 'email profile'),
    createUsers: create === 'true'
  }
}

/**
 * The sign-in providers of `env`, given the checked shared variables. Throws a ConfigError for an
 * unknown or misspelt OAUTH_ variable, a provider missing a variable, or a provider without PUBLIC_URL
 * and OAUTH_SUCCESS_URL (the redirect URI and the browser's destination).
 */
export function readOAuthSettings(
  env: NodeJS.ProcessEnv,
  shared: { providers?: string; successUrl?: string; failureUrl?: string; publicUrl?: string }
): OAuthSettings {
  const names = new Set(
    (shared.providers ?? '')
      .split(',')
      .map(name => name.trim())
      .filter(Boolean)
  )
  for (const name of names) {
    if (RESERVED.has(name))
      throw new ConfigError(`OAUTH_PROVIDERS: "${name}" is reserved by the routes: choose another name`)
  }
  const values = new Map<string, Partial<Record<Key, string>>>([...names].map(name => [name, {}]))
  for (const variable of Object.keys(env)) {
    if (!variable.startsWith('OAUTH_') || SHARED.has(variable) || !env[variable]) continue
    const { provider, key } = splitName(variable, names)
    values.get(provider)![key] = env[variable]
  }
  if (names.size > 0 && shared.publicUrl === undefined)
    throw new ConfigError(
      'PUBLIC_URL must be set when OAUTH_PROVIDERS is: the providers send the browser back to ' +
        'PUBLIC_URL/login/oauth/callback/<name>'
    )
  if (names.size > 0 && shared.successUrl === undefined)
    throw new ConfigError(
      'OAUTH_SUCCESS_URL must be set when OAUTH_PROVIDERS is: the page the browser goes to after a sign-in'
    )
  return {
    successUrl: shared.successUrl,
    failureUrl: shared.failureUrl ?? shared.successUrl,
    providers: [...names].map(name => readProvider(name, values.get(name)!))
  }
}
