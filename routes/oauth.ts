// Sign-in with OAuth 2 / OpenID Connect providers (src/oauth/), on JXP's routes:
// GET /login/oauth/{provider} sends the browser to the provider (state, PKCE and nonce sealed in
// a cookie of that browser); GET /login/oauth/callback/{provider} checks the answer, finds the
// user and sends the browser to OAUTH_SUCCESS_URL?token=<one-time sign-in token>, or to
// OAUTH_FAILURE_URL?error=<code>&provider=<name>; POST /login/oauth/token exchanges the sign-in
// token for what POST /login answers. Both destinations come from the settings only: no request
// can choose where the browser goes.
import type { FastifyInstance, FastifyReply } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { LoginResponse } from '../schemas/auth.ts'
import { QuireError } from '../src/errors.ts'
import { providerOf } from '../src/jxp/provider.ts'
import { USER_MODEL } from '../src/auth/users/user-model.ts'
import { OAUTH_LINK_MODEL } from '../src/oauth/oauth-link-model.ts'
import { matchUser } from '../src/oauth/match-user.ts'
import {
  clearedPendingCookie,
  newPendingSignIn,
  pendingCookie,
  readPendingSignIn
} from '../src/oauth/pending-sign-in.ts'
import { createProviderClient } from '../src/oauth/provider-client.ts'
import { SignInFailure } from '../src/oauth/sign-in-failure.ts'
import { issueSignInToken, redeemSignInToken } from '../src/oauth/sign-in-tokens.ts'

const ProviderParams = Type.Object({ provider: Type.String({ maxLength: 64 }) })
const SignInTokenBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 256 }) })
const Redirect = (to: string): Record<number, unknown> => ({
  302: Type.Null({ description: `Redirects the browser (Location) to ${to}` })
})

/** `base` with `params` added to its query. */
function withQuery(base: string, params: Record<string, string>): string {
  const url = new URL(base)
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value)
  return url.href
}

export default async function oauthRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const { config } = app
  const { successUrl, failureUrl } = config.oauth
  const providers = new Map(
    config.oauth.providers.map(provider => [provider.name, { provider, client: createProviderClient(provider) }])
  )
  if (providers.size > 0) await app.db.syncModels([OAUTH_LINK_MODEL])
  const { clock, sessions } = app.credentials
  const key = app.credentials.keyFor('oauth-pending')
  const secure = config.publicUrl?.startsWith('https:') === true
  const redirectUri = (name: string): string => `${config.publicUrl}/login/oauth/callback/${name}`

  function configured(name: string): NonNullable<ReturnType<typeof providers.get>> {
    const found = providers.get(name)
    if (!found) throw new QuireError('NOT_FOUND', `No sign-in provider is named ${JSON.stringify(name)}`)
    return found
  }

  function failed(reply: FastifyReply, name: string, err: unknown): FastifyReply {
    const failure = err instanceof SignInFailure ? err : new SignInFailure('unknown', err)
    reply.log.warn({ err: failure.cause ?? failure, provider: name }, `sign-in with ${name} failed: ${failure.code}`)
    return reply.redirect(withQuery(failureUrl!, { error: failure.code, provider: name }), 302)
  }

  app.get(
    '/login/oauth/:provider',
    {
      config: { rateLimit: app.endpointLimit('login') },
      schema: {
        operationId: 'getLoginOauthProvider',
        summary: 'Sign in with a provider: redirects the browser to it',
        params: ProviderParams,
        response: Redirect("the provider's authorization page (or OAUTH_FAILURE_URL when it cannot be reached)")
      }
    },
    async (request, reply) => {
      const { client } = configured(request.params.provider)
      const pending = newPendingSignIn(request.params.provider, clock.now())
      try {
        const url = await client.authorizationUrl(pending, redirectUri(request.params.provider))
        return reply.header('set-cookie', pendingCookie(key, pending, secure)).redirect(url.href, 302)
      } catch (err) {
        return failed(reply, request.params.provider, err)
      }
    }
  )

  app.get(
    '/login/oauth/callback/:provider',
    {
      config: { rateLimit: app.endpointLimit('login') },
      schema: {
        operationId: 'getLoginOauthCallbackProvider',
        summary:
          "The provider's redirect back: redirects the browser to OAUTH_SUCCESS_URL?token= or OAUTH_FAILURE_URL?error=",
        params: ProviderParams,
        response: Redirect('OAUTH_SUCCESS_URL?token=<sign-in token>, or OAUTH_FAILURE_URL?error=<code>&provider=<name>')
      }
    },
    async (request, reply) => {
      const name = request.params.provider
      const { provider, client } = configured(name)
      reply.header('set-cookie', clearedPendingCookie(secure))
      try {
        const pending = readPendingSignIn(key, request.headers.cookie, name, clock.now(), secure)
        const state = (request.query as Record<string, unknown>).state
        if (pending === undefined || state !== pending.state) throw new SignInFailure('invalid_state')
        const callbackUrl = new URL(redirectUri(name))
        callbackUrl.search = new URL(request.url, 'http://x').search
        const identity = await client.identify(callbackUrl, pending)
        const matched = await matchUser(app.system, provider, identity, config.bcryptRounds)
        const token = await issueSignInToken(app.system, matched.linkId, clock)
        return reply.redirect(withQuery(successUrl!, { token }), 302)
      } catch (err) {
        return failed(reply, name, err)
      }
    }
  )

  app.post(
    '/login/oauth/token',
    {
      config: { rateLimit: app.endpointLimit('login') },
      schema: {
        operationId: 'postLoginOauthToken',
        summary:
          'Exchange a one-time sign-in token (from OAUTH_SUCCESS_URL?token=) for a token, refresh token and API key',
        body: SignInTokenBody,
        response: { 200: LoginResponse }
      }
    },
    async request => {
      const userId = await redeemSignInToken(app.system, request.body.token, clock)
      if ((await app.system.findRaw(USER_MODEL, { _id: userId, _deleted: false })) === null) {
        throw new QuireError('AUTH_FAILED', 'Authentication failed', undefined, 'The user no longer exists')
      }
      return { status: 'ok' as const, ...(await sessions.login(userId)), provider: providerOf(request) }
    }
  )
}
