// Sessions: POST /login (email and password as JSON or a form, or a Basic header
// checked by the authentication step like on any request),
// POST /refresh (refresh token as Bearer; rotates it), GET|POST /login/logout,
// and GET /login/jwt?jwt= (exchanges a login link for a session: tokens, never
// the API key).
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { JwtQuery, LoginBody, LoginResponse, RefreshResponse } from '../schemas/auth.ts'
import { OkMessage } from '../schemas/common.ts'
import type { Caller } from '../src/auth/caller.ts'
import { QuireError } from '../src/errors.ts'
import { providerOf } from '../src/jxp/provider.ts'

function denied(reason: string): never {
  throw new QuireError('AUTH_FAILED', 'Authentication failed', undefined, reason)
}

function bodyString(body: Record<string, unknown>, name: string, maxLength: number): string | undefined {
  const value = body[name]
  if (value === undefined) return undefined
  if (typeof value !== 'string' || value.length === 0 || value.length > maxLength) {
    throw new QuireError('INVALID_BODY', `${name} must be a string of 1 to ${maxLength} characters`, [
      { field: name, message: 'is invalid' }
    ])
  }
  return value
}

/** The email and password in a login's body (JSON or form), or undefined when it does not hold both. */
function bodyPair(body: unknown): { email: string; password: string } | undefined {
  const fields = body && typeof body === 'object' ? (body as Record<string, unknown>) : {}
  const email = bodyString(fields, 'email', 254)
  const password = bodyString(fields, 'password', 1024)
  return email !== undefined && password !== undefined ? { email, password } : undefined
}

/** Without a body, the user whose Basic header the authentication step verified. */
function basicUser(caller: Caller): string {
  if (caller.via === 'basic' && caller.userId) return caller.userId
  return denied('Send email and password (as JSON, a form or a Basic authorization header)')
}

function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization ?? ''
  const token = /^bearer\s/i.test(header) ? header.slice(7).trim() : ''
  return token || denied('Send the refresh token as Authorization: Bearer <refresh_token>')
}

export default async function loginRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const auth = app.credentials

  app.post(
    '/login',
    {
      config: { rateLimit: app.endpointLimit('login') },
      schema: {
        summary: 'Log in: email and password (JSON, form or Basic) -> token, refresh token, API key',
        optionalBody: LoginBody,
        response: { 200: LoginResponse }
      }
    },
    async request => {
      const pair = bodyPair(request.body)
      const userId = pair
        ? ((await auth.passwords.verify(pair.email, pair.password, request.ip))._id as string)
        : basicUser(request.caller)
      return { status: 'ok' as const, ...(await auth.sessions.login(userId)), provider: providerOf(request) }
    }
  )

  app.post(
    '/refresh',
    {
      config: { authenticate: false, rateLimit: app.endpointLimit('refresh') },
      schema: {
        summary: 'New token and refresh token for a refresh token (sent as Bearer)',
        response: { 200: RefreshResponse }
      }
    },
    async request => {
      return {
        status: 'ok' as const,
        ...(await auth.sessions.refresh(bearerToken(request))),
        provider: providerOf(request)
      }
    }
  )

  app.route({
    method: ['GET', 'POST'],
    url: '/login/logout',
    schema: { summary: 'Log out: the token dies at once', response: { 200: OkMessage } },
    handler: async request => {
      const userId = request.caller.userId
      if (!userId) throw new QuireError('AUTH_REQUIRED', 'Log in to log out')
      await auth.sessions.end(userId)
      return { status: 'ok' as const, message: 'Logged out' }
    }
  })

  app.get(
    '/login/jwt',
    {
      config: { rateLimit: app.endpointLimit('loginLink') },
      schema: {
        summary: 'Exchange a login link (?jwt=) for a session',
        querystring: JwtQuery,
        response: { 200: RefreshResponse }
      }
    },
    async request => {
      // The onRequest hook authenticated ?jwt= (a login link; the schema requires it).
      return {
        status: 'ok' as const,
        ...(await auth.sessions.loginByLink(request.caller.userId as string)),
        provider: providerOf(request)
      }
    }
  )
}
