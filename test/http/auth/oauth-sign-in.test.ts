// Sign-in with OpenID Connect, end to end, against a real provider (oidc-provider) on loopback:
// the browser's way through /login/oauth/{provider}, the provider and the callback, the one-time
// sign-in token exchanged for what POST /login answers; users matched by a verified email or an
// earlier link, never by an unverified email, created only where the provider's settings allow;
// and an attacker's tries: a forged state, a callback made in another browser (login CSRF, state
// fixation), a replayed code, a replayed sign-in token, redirect targets in the query; on every
// engine of the wide suites (the links live in the internal model `_oauth_link`).
import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { createTestApp, wideEngines } from '../../helpers/test-app.ts'
import { TEST_SETTINGS, json, login } from '../../helpers/auth-helpers.ts'
import { startTestProvider } from '../../helpers/oidc-provider.ts'
import type { OAuthProvider } from '../../../src/oauth/oauth-settings.ts'
import { OAUTH_LINK_MODEL } from '../../../src/oauth/oauth-link-model.ts'

const PUBLIC_URL = 'http://quire.test'
const SUCCESS = 'https://app.example.com/signed-in'
const FAILURE = 'https://app.example.com/sign-in-failed'
const client = (name: string): { clientId: string; clientSecret: string; redirectUri: string } => ({
  clientId: `quire-${name}`,
  clientSecret: `${name} client secret`,
  redirectUri: `${PUBLIC_URL}/login/oauth/callback/${name}`
})

const provider = await startTestProvider([client('idp'), client('open'), client('plain')])
t.teardown(provider.stop)
provider.accounts.set('alice-sub', { email: 'Alice@Example.com', email_verified: true, name: 'Alice' })
provider.accounts.set('bob-sub', { email: 'bob@example.com', email_verified: false })
provider.accounts.set('carol-sub', { email: 'carol@example.com', email_verified: true, name: 'Carol' })
provider.accounts.set('mallory-sub', { email: 'mallory@example.com', email_verified: true })

const settings = (name: string, createUsers: boolean): OAuthProvider => ({
  name,
  issuer: provider.issuer,
  clientId: client(name).clientId,
  clientSecret: client(name).clientSecret,
  scopes: 'openid email profile',
  createUsers
})

for (const engine of wideEngines()) {
  t.test(`on ${engine}`, async t => {
    const { app, createUser } = await createTestApp(t, engine, {
      ...TEST_SETTINGS,
      publicUrl: PUBLIC_URL,
      oauth: {
        successUrl: SUCCESS,
        failureUrl: FAILURE,
        providers: [
          settings('idp', false),
          settings('open', true),
          {
            ...settings('plain', false),
            issuer: undefined,
            endpoints: {
              authorization: `${provider.issuer}/auth`,
              token: `${provider.issuer}/token`,
              userinfo: `${provider.issuer}/me`
            }
          }
        ]
      }
    })
    const alice = await createUser('alice@example.com', 'alice-password')
    await createUser('bob@example.com', 'bob-password')
    await createUser('mallory@example.com', 'mallory-password')

    /**
     * A browser's sign-in: start, the provider's pages, the callback; the callback's answer and the browser's cookie.
     */
    interface Started {
      authorizationUrl: URL
      cookie: string
    }

    async function start(app: FastifyInstance, name: string, query = ''): Promise<Started> {
      const res = await app.inject({ method: 'GET', url: `/login/oauth/${name}${query}` })
      if (res.statusCode !== 302) throw new Error(`start answered ${res.statusCode}: ${res.body}`)
      const setCookie = String(res.headers['set-cookie'])
      return { authorizationUrl: new URL(res.headers.location as string), cookie: setCookie.split(';')[0] }
    }

    async function callback(name: string, answer: URL, cookie?: string): Promise<LightMyRequestResponse> {
      return await app.inject({
        method: 'GET',
        url: `/login/oauth/callback/${name}${answer.search}`,
        headers: cookie ? { cookie } : {}
      })
    }

    /** Where the callback sent the browser: the success page's token, or the failure page's error. */
    function outcome(res: LightMyRequestResponse): { token?: string; error?: string; provider?: string; page: string } {
      if (res.statusCode !== 302) throw new Error(`the callback answered ${res.statusCode}: ${res.body}`)
      const to = new URL(res.headers.location as string)
      return {
        page: to.origin + to.pathname,
        token: to.searchParams.get('token') ?? undefined,
        error: to.searchParams.get('error') ?? undefined,
        provider: to.searchParams.get('provider') ?? undefined
      }
    }

    async function signIn(
      name: string,
      subject: string
    ): Promise<{ token?: string; error?: string; provider?: string; page: string }> {
      const started = await start(app, name)
      return outcome(
        await callback(name, await provider.authorize(started.authorizationUrl.href, subject), started.cookie)
      )
    }

    async function exchange(token: string): Promise<LightMyRequestResponse> {
      return await app.inject({ method: 'POST', url: '/login/oauth/token', payload: { token } })
    }

    t.test(
      'the authorization request: the provider, state, PKCE S256, nonce, the configured redirect URI, a ' +
        'sealed HttpOnly cookie',
      async t => {
        const started = await start(app, 'idp')
        const params = started.authorizationUrl.searchParams
        t.equal(started.authorizationUrl.origin, provider.issuer)
        t.equal(params.get('client_id'), 'quire-idp')
        t.equal(params.get('redirect_uri'), `${PUBLIC_URL}/login/oauth/callback/idp`)
        t.equal(params.get('response_type'), 'code')
        t.equal(params.get('code_challenge_method'), 'S256')
        t.match(params.get('code_challenge'), /^[A-Za-z0-9_-]{43}$/)
        t.match(params.get('state'), /^[A-Za-z0-9_-]{43}$/)
        t.match(params.get('nonce'), /^[A-Za-z0-9_-]{43}$/)
        const res = await app.inject({ method: 'GET', url: '/login/oauth/idp' })
        t.match(
          String(res.headers['set-cookie']),
          /^quire_oauth=[^;]+; Path=\/login\/oauth\/callback\/; HttpOnly; SameSite=Lax; Max-Age=600$/,
          'over http, only the callbacks get it'
        )
        t.notMatch(String(res.headers['set-cookie']), params.get('state')!, 'the state is not readable in the cookie')
      }
    )

    t.test('a verified email signs its user in, with what POST /login answers', async t => {
      const result = await signIn('idp', 'alice-sub')
      t.equal(result.page, SUCCESS)
      t.match(result.token, /^qst_[A-Za-z0-9_-]{43}$/)
      const res = await exchange(result.token!)
      t.equal(res.statusCode, 200)
      const body = json(res)
      t.same(Object.keys(body).sort(), [
        'apikey',
        'provider',
        'refresh_token',
        'refresh_token_expires',
        'status',
        'token',
        'token_expires',
        'user_id'
      ])
      t.equal(body.user_id, alice.id)
      const byPassword = await login(app, 'alice@example.com', 'alice-password')
      t.equal(body.apikey, byPassword.apikey, 'the same permanent API key as a password login')
      const me = await app.inject({ method: 'GET', url: `/api/user/${alice.id}`, headers: { apikey: body.apikey } })
      t.equal(me.statusCode, 200)
      const again = await exchange(result.token!)
      t.equal(again.statusCode, 401, 'a sign-in token works once')
      t.equal(json(again).err, 'Invalid or used sign-in token')
    })

    t.test('an account linked once signs in by its link, whatever its email becomes', async t => {
      provider.accounts.set('alice-sub', { email: 'alice.new@example.net', email_verified: false })
      t.teardown(() => {
        provider.accounts.set('alice-sub', { email: 'Alice@Example.com', email_verified: true, name: 'Alice' })
      })
      const result = await signIn('idp', 'alice-sub')
      t.equal(json(await exchange(result.token!)).user_id, alice.id)
    })

    t.test(
      'a provider configured by its endpoints (plain OAuth 2, no discovery): the email from its userinfo endpoint',
      async t => {
        const result = await signIn('plain', 'alice-sub')
        t.equal(result.page, SUCCESS)
        t.equal(json(await exchange(result.token!)).user_id, alice.id)
      }
    )

    t.test('an unverified email signs no one in', async t => {
      const result = await signIn('idp', 'bob-sub')
      t.same(result, { page: FAILURE, error: 'email_not_verified', provider: 'idp', token: undefined })
      t.equal(await app.system.count(OAUTH_LINK_MODEL, { provider: 'idp', subject: 'bob-sub' }), 0, 'and links nothing')
    })

    t.test('an unknown email creates no user unless the provider allows it', async t => {
      t.same(await signIn('idp', 'carol-sub'), { page: FAILURE, error: 'no_user', provider: 'idp', token: undefined })
      const created = await signIn('open', 'carol-sub')
      t.equal(created.page, SUCCESS)
      const session = json(await exchange(created.token!))
      const carol = json(
        await app.inject({ method: 'GET', url: `/api/user/${session.user_id}`, headers: { apikey: session.apikey } })
      )
      t.match(carol.data, { email: 'carol@example.com', name: 'Carol', admin: false })
      const password = await app.inject({
        method: 'POST',
        url: '/login',
        payload: { email: 'carol@example.com', password: '' }
      })
      t.equal(password.statusCode, 400, 'no password that anyone knows')
    })

    t.test(
      "a forged state, a missing cookie, another provider's cookie: invalid_state, and the code is not exchanged",
      async t => {
        const started = await start(app, 'idp')
        const answer = await provider.authorize(started.authorizationUrl.href, 'alice-sub')
        const forged = new URL(answer)
        forged.searchParams.set('state', 'x'.repeat(43))
        t.equal(outcome(await callback('idp', forged, started.cookie)).error, 'invalid_state')
        t.equal(outcome(await callback('idp', answer)).error, 'invalid_state', 'no cookie')
        t.equal(
          outcome(await callback('idp', answer, 'quire_oauth=tampered.with.value')).error,
          'invalid_state',
          'a cookie not sealed by Quire'
        )
        const other = await start(app, 'open')
        t.equal(
          outcome(await callback('idp', answer, other.cookie)).error,
          'invalid_state',
          'a cookie of another provider'
        )
        const used = await callback('idp', answer, started.cookie)
        t.match(outcome(used), { page: SUCCESS }, 'the code was still unused')
        t.match(
          String(used.headers['set-cookie']),
          /^quire_oauth=; Path=\/login\/oauth\/callback\/; HttpOnly; SameSite=Lax; Max-Age=0$/,
          'each callback deletes the cookie'
        )
      }
    )

    t.test(
      "login CSRF: an attacker's callback URL opened in the victim's browser signs the victim into nothing",
      async t => {
        const attacker = await start(app, 'idp')
        const attackersAnswer = await provider.authorize(attacker.authorizationUrl.href, 'mallory-sub')
        const victim = await start(app, 'idp') // the victim's browser has a sign-in of its own under way
        t.equal(outcome(await callback('idp', attackersAnswer, victim.cookie)).error, 'invalid_state')
        t.equal(outcome(await callback('idp', attackersAnswer)).error, 'invalid_state', 'nor in a browser without one')
      }
    )

    t.test('a replayed code: the second callback fails at the provider', async t => {
      const started = await start(app, 'idp')
      const answer = await provider.authorize(started.authorizationUrl.href, 'alice-sub')
      t.equal(outcome(await callback('idp', answer, started.cookie)).page, SUCCESS)
      t.same(outcome(await callback('idp', answer, started.cookie)), {
        page: FAILURE,
        error: 'token_request_failed',
        provider: 'idp',
        token: undefined
      })
    })

    t.test('a user who refuses at the provider: its error code', async t => {
      t.same(await signIn('idp', 'deny'), { page: FAILURE, error: 'access_denied', provider: 'idp', token: undefined })
    })

    t.test('no request chooses where the browser goes', async t => {
      const started = await start(
        app,
        'idp',
        `?redirect_uri=${encodeURIComponent('https://evil.example/cb')}` +
          '&redirect=https://evil.example&success_uri=https://evil.example'
      )
      t.equal(started.authorizationUrl.searchParams.get('redirect_uri'), `${PUBLIC_URL}/login/oauth/callback/idp`)
      const answer = await provider.authorize(started.authorizationUrl.href, 'alice-sub')
      answer.searchParams.set('redirect', 'https://evil.example')
      t.equal(outcome(await callback('idp', answer, started.cookie)).page, SUCCESS)
      const unknown = await app.inject({ method: 'GET', url: '/login/oauth/evil.example' })
      t.equal(unknown.statusCode, 404)
      t.equal(json(unknown).code, 'NOT_FOUND')
      t.equal(unknown.headers.location, undefined)
      const unknownCallback = await app.inject({ method: 'GET', url: '/login/oauth/callback/nope?code=x&state=y' })
      t.equal(unknownCallback.statusCode, 404)
    })

    t.test('bad sign-in tokens are 4xx with stable codes', async t => {
      const cases: Array<[unknown, number, string]> = [
        [{ token: 'qst_' + 'A'.repeat(43) }, 401, 'AUTH_FAILED'],
        [{ token: 'qat_whatever' }, 401, 'AUTH_FAILED'],
        [{}, 400, 'INVALID_BODY'],
        [{ token: 'x'.repeat(300) }, 400, 'INVALID_BODY']
      ]
      for (const [payload, status, code] of cases) {
        const res = await app.inject({
          method: 'POST',
          url: '/login/oauth/token',
          payload: payload as Record<string, unknown>
        })
        t.equal(res.statusCode, status, JSON.stringify(payload))
        t.equal(json(res).code, code)
      }
    })

    t.test('a provider that cannot be reached: provider_unavailable, and Quire keeps serving', async t => {
      const { app: lonely } = await createTestApp(t, engine, {
        ...TEST_SETTINGS,
        publicUrl: PUBLIC_URL,
        oauth: {
          successUrl: SUCCESS,
          failureUrl: FAILURE,
          providers: [{ ...settings('idp', false), issuer: 'http://127.0.0.1:9/' }]
        }
      })
      const res = await lonely.inject({ method: 'GET', url: '/login/oauth/idp' })
      t.equal(res.statusCode, 302)
      t.equal(res.headers.location, `${FAILURE}?error=provider_unavailable&provider=idp`)
    })
  })
}
