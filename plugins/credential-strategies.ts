// The authentication step of every request, composed with @fastify/auth (relation
// "and"): first the request's credentials are identified (at most one: two, or a
// repeated one, is a 401), then each strategy authenticates the credential of its
// kind and passes when its kind is absent. A presented credential that fails ends
// the chain with its 401, so there is no fall-back to anonymous. Basic is parsed
// by @fastify/basic-auth; its check is the cached one (no bcrypt per request).
import fastifyAuth from '@fastify/auth'
import fastifyBasicAuth from '@fastify/basic-auth'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Caller } from '../src/auth/caller.ts'
import { callerFromUser } from '../src/auth/caller.ts'
import type { LoginLinks } from '../src/auth/login-links.ts'
import type { PasswordChecker } from '../src/auth/password-checker.ts'
import { presentedCredential, type Presented } from '../src/auth/presented-credential.ts'
import type { SessionStore } from '../src/auth/sessions.ts'
import { QuireError } from '../src/errors.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The one credential the request presents (set by the authentication step). */
    credential?: Presented
  }
}

type Done = (err?: Error) => void
type Strategy = (request: FastifyRequest, reply: FastifyReply, done: Done) => void
export type Authenticate = Strategy

export interface CredentialChecks {
  passwords: PasswordChecker
  sessions: SessionStore
  links: LoginLinks
}

/** A strategy for one credential kind: it passes at once when the request presents another kind. */
function strategyFor<K extends Presented['kind']> (kind: K, check: (credential: Extract<Presented, { kind: K }>) => Promise<Caller>): Strategy {
  return (request, _reply, done) => {
    const credential = request.credential
    if (credential?.kind !== kind) { done(); return }
    check(credential as Extract<Presented, { kind: K }>).then(caller => { request.caller = caller; done() }, done)
  }
}

/** @fastify/basic-auth reports a malformed header as its own 401 error: answer it like every other failure. */
function malformedBasic (err: Error | undefined): Error | undefined {
  const code = (err as { code?: string } | undefined)?.code
  return code === 'FST_BASIC_AUTH_MISSING_OR_BAD_AUTHORIZATION_HEADER' ? new QuireError('AUTH_FAILED', 'Authentication failed', undefined, 'Malformed Basic credentials') : err
}

/** Registers @fastify/auth and @fastify/basic-auth on `app` and returns the authentication step they compose. */
export async function createAuthenticator (app: FastifyInstance, checks: CredentialChecks): Promise<Authenticate> {
  await app.register(fastifyAuth)
  await app.register(fastifyBasicAuth, {
    strictCredentials: false,
    validate: async (email, password, request) => {
      if (!email) throw new QuireError('AUTH_FAILED', 'Authentication failed', undefined, 'Malformed Basic credentials')
      request.caller = await checks.passwords.callerFor(email, password, request.ip)
    }
  })
  const identify: Strategy = (request, _reply, done) => {
    try { request.credential = presentedCredential(request.headers, request.query) } catch (err) { done(err as Error); return }
    done()
  }
  const basic: Strategy = (request, reply, done) => {
    if (request.credential?.kind !== 'basic') { done(); return }
    const parseAndCheck = app.basicAuth as (request: FastifyRequest, reply: FastifyReply, done: Done) => void
    parseAndCheck(request, reply, err => { done(malformedBasic(err)) })
  }
  const bearer = strategyFor('bearer', async ({ token }) => await checks.sessions.callerForToken(token))
  const apikey = strategyFor('apikey', async ({ key }) => await checks.sessions.callerForApiKey(key))
  const jwt = strategyFor('jwt', async (credential) => callerFromUser(await checks.links.resolve(credential.jwt, 'login'), 'jwt'))
  return app.auth([identify, basic, bearer, apikey, jwt], { relation: 'and' }) as unknown as Authenticate
}
