// A real OpenID Connect provider (oidc-provider) on loopback for the sign-in tests, with a
// scripted user agent: `authorize` follows the provider's redirects as a browser would (with its
// cookies), signs in as one of `accounts` (or refuses, for the account 'deny'), consents to the
// scopes asked for, and returns the redirect URI with the provider's answer (code, state, iss).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider from 'oidc-provider'

interface TestAccount {
  email: string
  email_verified: boolean
  name?: string
}

export interface TestProvider {
  issuer: string
  /** Accounts by subject; tests may change them (an email the provider no longer verifies, say). */
  accounts: Map<string, TestAccount>
  authorize: (authorizationUrl: string, subject: string) => Promise<URL>
  stop: () => Promise<void>
}

export interface TestClient {
  clientId: string
  clientSecret: string
  redirectUri: string
}

/** The cookies of one host, as name -> value, updated from Set-Cookie headers. */
function rememberCookies(jar: Map<string, string>, response: Response): void {
  for (const line of response.headers.getSetCookie()) {
    const [pair, ...attributes] = line.split(';')
    const at = pair.indexOf('=')
    const name = pair.slice(0, at).trim()
    const expired = attributes.some(a => /^\s*expires=Thu, 01 Jan 1970/i.test(a) || /^\s*max-age=0\s*$/i.test(a))
    if (expired) jar.delete(name)
    else jar.set(name, pair.slice(at + 1).trim())
  }
}

export async function startTestProvider(clients: TestClient[]): Promise<TestProvider> {
  const accounts = new Map<string, TestAccount>()
  const server = createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const provider = new Provider(issuer, {
    clients: clients.map(c => ({
      client_id: c.clientId,
      client_secret: c.clientSecret,
      redirect_uris: [c.redirectUri],
      grant_types: ['authorization_code'],
      response_types: ['code']
    })),
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub)
      return account && { accountId: sub, claims: () => ({ sub, ...account }) }
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ["a test provider's cookie key"] }
  })
  let signingInAs = ''

  /** The login and consent page: signs in as `signingInAs` at once (or refuses for 'deny'). */
  async function interact(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res)
    if (signingInAs === 'deny') {
      await provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'The user said no' },
        { mergeWithLastSubmission: false }
      )
      return
    }
    const grant = new provider.Grant({ accountId: signingInAs, clientId: details.params.client_id as string })
    grant.addOIDCScope(details.params.scope as string)
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: signingInAs }, consent: { grantId: await grant.save() } },
      { mergeWithLastSubmission: false }
    )
  }

  const handle = provider.callback()
  server.on('request', (req, res) => {
    if (req.url?.startsWith('/interaction/'))
      interact(req, res).catch(err => {
        res.statusCode = 500
        res.end(String(err))
      })
    else handle(req, res)
  })

  async function authorize(authorizationUrl: string, subject: string): Promise<URL> {
    signingInAs = subject
    const jar = new Map<string, string>()
    let url = new URL(authorizationUrl)
    for (let hop = 0; hop < 10; hop++) {
      const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ')
      const response = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} })
      rememberCookies(jar, response)
      const location = response.headers.get('location')
      if (location === null)
        throw new Error(`the provider answered ${response.status} at ${url.pathname}: ${await response.text()}`)
      url = new URL(location, url)
      if (url.origin !== issuer) return url
    }
    throw new Error('too many redirects at the provider')
  }

  return {
    issuer,
    accounts,
    authorize,
    stop: async () => {
      server.closeAllConnections()
      await new Promise(resolve => server.close(resolve))
    }
  }
}
