// The sign-in providers' settings: OAUTH_PROVIDERS and each provider's OAUTH_<NAME>_* variables
// read into providers, and every mistake (a missing, orphaned, misspelt or unsafe variable) a
// one-line configuration error naming it.
import t from 'tap'
import { loadConfig, ConfigError } from '../../src/config.ts'

const BASE = {
  DATABASE_URL: 'postgres://localhost/quire',
  PUBLIC_URL: 'https://quire.example.com',
  OAUTH_SUCCESS_URL: 'https://app.example.com/in',
  OAUTH_PROVIDERS: 'google, work'
}
const GOOGLE = {
  OAUTH_GOOGLE_ISSUER: 'https://accounts.google.com',
  OAUTH_GOOGLE_CLIENT_ID: 'g-id',
  OAUTH_GOOGLE_CLIENT_SECRET: 'g-secret'
}
const WORK = {
  OAUTH_WORK_AUTHORIZATION_URL: 'https://sso.example.com/authorize',
  OAUTH_WORK_TOKEN_URL: 'https://sso.example.com/token',
  OAUTH_WORK_USERINFO_URL: 'https://sso.example.com/userinfo',
  OAUTH_WORK_CLIENT_ID: 'w-id',
  OAUTH_WORK_CLIENT_SECRET: 'w-secret',
  OAUTH_WORK_SCOPES: 'email',
  OAUTH_WORK_CREATE_USERS: 'true'
}

t.test('providers are read from their variables', async t => {
  const config = loadConfig({ ...BASE, ...GOOGLE, ...WORK })
  t.equal(config.publicUrl, 'https://quire.example.com')
  t.same(config.oauth, {
    successUrl: 'https://app.example.com/in',
    failureUrl: 'https://app.example.com/in',
    providers: [
      {
        name: 'google',
        issuer: 'https://accounts.google.com',
        clientId: 'g-id',
        clientSecret: 'g-secret',
        scopes: 'openid email profile',
        createUsers: false
      },
      {
        name: 'work',
        endpoints: {
          authorization: 'https://sso.example.com/authorize',
          token: 'https://sso.example.com/token',
          userinfo: 'https://sso.example.com/userinfo'
        },
        clientId: 'w-id',
        clientSecret: 'w-secret',
        scopes: 'email',
        createUsers: true
      }
    ]
  })
  t.same(
    loadConfig({ DATABASE_URL: 'postgres://localhost/quire' }).oauth,
    { successUrl: undefined, failureUrl: undefined, providers: [] },
    'none by default'
  )
})

t.test('mistakes are one line naming the variable', async t => {
  const cases: Array<[string, Record<string, string>, string]> = [
    [
      'a misspelt key',
      { ...BASE, ...GOOGLE, ...WORK, OAUTH_GOOGLE_CLIENTID: 'x' },
      'OAUTH_GOOGLE_CLIENTID is not a Quire setting: did you mean OAUTH_<NAME>_CLIENT_ID?'
    ],
    [
      'a provider OAUTH_PROVIDERS does not name',
      { ...BASE, ...GOOGLE, ...WORK, OAUTH_GITHUB_CLIENT_ID: 'x' },
      'OAUTH_GITHUB_CLIENT_ID: OAUTH_PROVIDERS does not name a provider "github"'
    ],
    [
      'a missing client secret',
      { ...BASE, ...GOOGLE, ...WORK, OAUTH_GOOGLE_CLIENT_SECRET: '' },
      'OAUTH_GOOGLE_CLIENT_SECRET must be set (OAUTH_PROVIDERS names google)'
    ],
    [
      'neither issuer nor endpoints',
      { ...BASE, ...GOOGLE, ...WORK, OAUTH_GOOGLE_ISSUER: '' },
      'OAUTH_GOOGLE_ISSUER must be set, or OAUTH_GOOGLE_AUTHORIZATION_URL, OAUTH_GOOGLE_TOKEN_URL and ' +
        'OAUTH_GOOGLE_USERINFO_URL'
    ],
    [
      'both issuer and endpoints',
      { ...BASE, ...GOOGLE, ...WORK, OAUTH_GOOGLE_TOKEN_URL: 'https://x.example/token' },
      'OAUTH_GOOGLE_ISSUER and OAUTH_GOOGLE_TOKEN_URL: set the issuer (OpenID Connect discovery) or the ' +
        'three endpoints, not both'
    ],
    [
      'a plain http provider',
      { ...BASE, ...GOOGLE, ...WORK, OAUTH_GOOGLE_ISSUER: 'http://accounts.example.com' },
      'OAUTH_GOOGLE_ISSUER must be an https:// URL (http:// only on localhost)'
    ],
    [
      'a bad flag',
      { ...BASE, ...GOOGLE, ...WORK, OAUTH_WORK_CREATE_USERS: 'yes' },
      'OAUTH_WORK_CREATE_USERS must be true or false (got "yes")'
    ],
    [
      'no PUBLIC_URL',
      { ...BASE, ...GOOGLE, ...WORK, PUBLIC_URL: '' },
      'PUBLIC_URL must be set when OAUTH_PROVIDERS is: the providers send the browser back to ' +
        'PUBLIC_URL/login/oauth/callback/<name>'
    ],
    [
      'no success page',
      { ...BASE, ...GOOGLE, ...WORK, OAUTH_SUCCESS_URL: '' },
      'OAUTH_SUCCESS_URL must be set when OAUTH_PROVIDERS is: the page the browser goes to after a sign-in'
    ],
    [
      'a reserved name',
      { ...BASE, OAUTH_PROVIDERS: 'callback' },
      'OAUTH_PROVIDERS: "callback" is reserved by the routes: choose another name'
    ],
    [
      'a name with other characters',
      { ...BASE, OAUTH_PROVIDERS: 'my_idp' },
      'OAUTH_PROVIDERS must be a comma-separated list of names of lower-case letters and digits'
    ],
    [
      'a PUBLIC_URL ending in a slash',
      { ...BASE, PUBLIC_URL: 'https://quire.example.com/' },
      'PUBLIC_URL must be an http:// or https:// URL without a trailing slash'
    ],
    [
      'OAUTH_PROVIDERS misspelt',
      { DATABASE_URL: 'postgres://localhost/quire', OAUTH_PROVIDER: 'google' },
      'OAUTH_PROVIDER is not a Quire setting: did you mean OAUTH_PROVIDERS?'
    ]
  ]
  for (const [name, env, message] of cases) {
    let caught: unknown
    try {
      loadConfig(env)
    } catch (err) {
      caught = err
    }
    t.type(caught, ConfigError, name)
    t.equal((caught as Error | undefined)?.message, `configuration: ${message}`, name)
  }
})
