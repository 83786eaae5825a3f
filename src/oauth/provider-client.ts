// One sign-in provider through openid-client: the authorization URL (state, PKCE S256 and, for
// OpenID Connect, a nonce) and, at the callback, the code exchanged for tokens (state, PKCE,
// ID token signature, issuer, audience and nonce checked by the library) and the account's
// identity from the ID token or the userinfo endpoint. Discovery runs at first use and is kept
// (retried after a failure), so a provider that is down does not stop Quire from starting.
import * as client from 'openid-client'
import type { OAuthProvider } from './oauth-settings.ts'
import type { PendingSignIn } from './pending-sign-in.ts'
import { SignInFailure } from './sign-in-failure.ts'

/** What a provider says about the account that signed in. */
export interface ProviderIdentity {
  subject: string
  email?: string
  /** Only an explicit `email_verified: true` (or Google's v2 `verified_email`) counts. */
  emailVerified: boolean
  name?: string
}

export interface ProviderClient {
  authorizationUrl: (pending: PendingSignIn, redirectUri: string) => Promise<URL>
  /** The identity behind the callback at `callbackUrl` (the redirect URI with the provider's query). */
  identify: (callbackUrl: URL, pending: PendingSignIn) => Promise<ProviderIdentity>
}

const isLoopbackHttp = (url: string): boolean => new URL(url).protocol === 'http:'

/** The error code a provider put in its redirect, when it is a plain word (RFC 6749's are); else a generic one. */
function providerErrorCode(err: client.AuthorizationResponseError): string {
  const code = err.error
  return /^[a-z_]{1,64}$/.test(code) ? code : 'provider_error'
}

/** openid-client's failures as the stable codes of the failure redirect. */
function failureOf(err: unknown): SignInFailure {
  if (err instanceof SignInFailure) return err
  if (err instanceof client.AuthorizationResponseError) return new SignInFailure(providerErrorCode(err), err)
  if (err instanceof client.ResponseBodyError) return new SignInFailure('token_request_failed', err)
  if (err instanceof client.ClientError) return new SignInFailure('invalid_response', err)
  return new SignInFailure('provider_unavailable', err)
}

/** The identity in an ID token's claims or a userinfo answer (OpenID Connect names, and JXP's Google v2 ones). */
function identityFrom(claims: Record<string, unknown>): ProviderIdentity {
  const subject = claims.sub ?? claims.id
  if (typeof subject !== 'string' && typeof subject !== 'number') throw new SignInFailure('missing_data')
  return {
    subject: String(subject),
    email: typeof claims.email === 'string' ? claims.email : undefined,
    emailVerified: claims.email_verified === true || claims.verified_email === true,
    name: typeof claims.name === 'string' ? claims.name : undefined
  }
}

export function createProviderClient(provider: OAuthProvider): ProviderClient {
  const oidc = provider.issuer !== undefined
  let configuration: Promise<client.Configuration> | undefined

  async function configure(): Promise<client.Configuration> {
    if (provider.issuer !== undefined) {
      const insecure = isLoopbackHttp(provider.issuer) ? { execute: [client.allowInsecureRequests] } : undefined
      return await client.discovery(
        new URL(provider.issuer),
        provider.clientId,
        provider.clientSecret,
        undefined,
        insecure
      )
    }
    const { authorization, token, userinfo } = provider.endpoints!
    const config = new client.Configuration(
      {
        issuer: new URL(authorization).origin,
        authorization_endpoint: authorization,
        token_endpoint: token,
        userinfo_endpoint: userinfo
      },
      provider.clientId,
      provider.clientSecret
    )
    if ([authorization, token, userinfo].some(isLoopbackHttp)) client.allowInsecureRequests(config)
    return config
  }

  function configured(): Promise<client.Configuration> {
    configuration ??= configure().catch((err: unknown) => {
      configuration = undefined
      throw new SignInFailure('provider_unavailable', err)
    })
    return configuration
  }

  /** A plain OAuth 2 provider's userinfo answer (no subject to check it against). */
  async function plainUserinfo(config: client.Configuration, accessToken: string): Promise<Record<string, unknown>> {
    const answer = await client.fetchProtectedResource(
      config,
      accessToken,
      new URL(provider.endpoints!.userinfo),
      'GET'
    )
    if (!answer.ok) throw new SignInFailure('api_request_failed')
    return (await answer.json()) as Record<string, unknown>
  }

  return {
    authorizationUrl: async (pending, redirectUri) => {
      const config = await configured()
      const parameters: Record<string, string> = {
        redirect_uri: redirectUri,
        scope: provider.scopes,
        state: pending.state,
        code_challenge: await client.calculatePKCECodeChallenge(pending.verifier),
        code_challenge_method: 'S256'
      }
      if (oidc) parameters.nonce = pending.nonce
      return client.buildAuthorizationUrl(config, parameters)
    },
    identify: async (callbackUrl, pending) => {
      try {
        const config = await configured()
        const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: pending.verifier,
          expectedState: pending.state,
          ...(oidc ? { expectedNonce: pending.nonce, idTokenExpected: true } : {})
        })
        const claims = tokens.claims()
        if (!oidc || claims === undefined) return identityFrom(await plainUserinfo(config, tokens.access_token))
        if (typeof claims.email === 'string') return identityFrom(claims)
        return identityFrom(await client.fetchUserInfo(config, tokens.access_token, claims.sub))
      } catch (err) {
        throw failureOf(err)
      }
    }
  }
}
