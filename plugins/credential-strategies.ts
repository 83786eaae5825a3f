// The authentication step of every request (an onRequest hook), composed with @fastify/auth (relation
// "and"): first the request's credentials are identified (at most one: two, or a
// repeated one, is a 401), then each strategy authenticates the credential of its
// kind and passes when its kind is absent. A presented credential that fails ends
// the chain with its 401, so there is no fall-back to anonymous. A credential the
// credential cache remembers passes synchronously (no promise, no parsing); Basic
// is otherwise parsed by @fastify/basic-auth and checked by the cached check.
import fastifyAuth from '@fastify/auth'
import fastifyBasicAuth from '@fastify/basic-auth'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ANONYMOUS, callerFromUser, type Caller } from '../src/auth/caller.ts'
import type { LoginLinks } from '../src/auth/credentials/login-links.ts'
import type { PasswordChecker } from '../src/auth/password-checker.ts'
import { presentedCredential, type Presented } from '../src/auth/presented-credential.ts'
import type { SessionStore } from '../src/auth/credentials/sessions.ts'
import { QuireError } from '../src/errors.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: the route reads its own credentials (POST /refresh). */
    authenticate?: boolean
  }
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

type Of<K extends Presented['kind']> = Extract<Presented, { kind: K }>

/**
 * A strategy for one credential kind: it passes at once when the request presents another kind,
 * or a credential the credential cache remembers (synchronously: no promise on the path almost
 * every request takes); otherwise `check` authenticates it.
 */
function strategyFor<K extends Presented['kind']>(
  kind: K,
  remembered: (credential: Of<K>) => Caller | undefined,
  check: (credential: Of<K>, request: FastifyRequest, reply: FastifyReply, done: Done) => void
): Strategy {
  return (request, reply, done) => {
    const credential = request.credential
    if (credential?.kind !== kind) {
      done()
      return
    }
    const known = remembered(credential as Of<K>)
    if (known !== undefined) {
      request.caller = known
      done()
      return
    }
    check(credential as Of<K>, request, reply, done)
  }
}

/** A check that resolves the caller asynchronously. */
function resolvedBy<K extends Presented['kind']>(find: (credential: Of<K>) => Promise<Caller>) {
  return (credential: Of<K>, request: FastifyRequest, _reply: FastifyReply, done: Done): void => {
    find(credential).then(caller => {
      request.caller = caller
      done()
    }, done)
  }
}

const NOTHING_REMEMBERED = (): undefined => undefined

/** @fastify/basic-auth reports a malformed header as its own 401 error: answer it like every other failure. */
function malformedBasic(err: Error | undefined): Error | undefined {
  const code = (err as { code?: string } | undefined)?.code
  return code === 'FST_BASIC_AUTH_MISSING_OR_BAD_AUTHORIZATION_HEADER'
    ? new QuireError('AUTH_FAILED', 'Authentication failed', undefined, 'Malformed Basic credentials')
    : err
}

/**
 * Registers @fastify/auth and @fastify/basic-auth on `app`, and the onRequest hook that runs the
 * authentication step they compose on every request (but routes with `authenticate: false`);
 * returns the step.
 */
export async function addAuthentication(app: FastifyInstance, checks: CredentialChecks): Promise<Authenticate> {
  await app.register(fastifyAuth)
  await app.register(fastifyBasicAuth, {
    strictCredentials: false,
    validate: async (email, password, request) => {
      if (!email) throw new QuireError('AUTH_FAILED', 'Authentication failed', undefined, 'Malformed Basic credentials')
      request.caller = await checks.passwords.callerFor(email, password, request.ip)
    }
  })
  const identify: Strategy = (request, _reply, done) => {
    try {
      request.credential = presentedCredential(request.headers, request.query)
    } catch (err) {
      done(err as Error)
      return
    }
    done()
  }
  const parseAndCheck = app.basicAuth as (request: FastifyRequest, reply: FastifyReply, done: Done) => void
  const basic = strategyFor(
    'basic',
    ({ encoded }) => checks.passwords.remembered(encoded),
    (_credential, request, reply, done) => {
      parseAndCheck(request, reply, err => {
        done(malformedBasic(err))
      })
    }
  )
  const bearer = strategyFor(
    'bearer',
    ({ token }) => checks.sessions.remembered('token', token),
    resolvedBy(async ({ token }) => await checks.sessions.callerForToken(token))
  )
  const apikey = strategyFor(
    'apikey',
    ({ key }) => checks.sessions.remembered('apikey', key),
    resolvedBy(async ({ key }) => await checks.sessions.callerForApiKey(key))
  )
  const jwt = strategyFor(
    'jwt',
    NOTHING_REMEMBERED,
    resolvedBy(async credential => callerFromUser(await checks.links.resolve(credential.jwt, 'login'), 'jwt'))
  )
  const authenticate = app.auth([identify, basic, bearer, apikey, jwt], { relation: 'and' }) as unknown as Authenticate
  app.decorateRequest('caller', null as unknown as Caller)
  app.decorateRequest('credential', undefined)
  app.addHook('onRequest', (request, reply, done) => {
    request.caller = ANONYMOUS
    if (request.routeOptions.config?.authenticate === false) done()
    else authenticate(request, reply, done)
  })
  return authenticate
}
