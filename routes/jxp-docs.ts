// JXP's browser routes, for every deployment: GET / (a landing page), GET /docs/md/{doc} (the
// guides: Quire's docs/*.md, api.md is the README), and the model browser behind a docs session:
// GET /docs/login, POST /docs/session {apikey} (a cookie; 401 for an unknown key), GET
// /docs/session ({apikey}; 401 without one), GET /docs/api and /docs/model/{name} (302 to the
// login without a session; only the models the session's caller may use).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { readFile } from 'node:fs/promises'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { PACKAGE_ROOT } from '../src/package-root.ts'
import { lettersHeld, requireVisible, visibleModels } from '../src/permissions/authorize/authorize-discovery.ts'
import { docsSessionKey, isApiKeyShaped, setDocsSession } from '../src/jxp/docs-session.ts'
import { landingPage, loginPage, modelPage, referencePage } from '../src/jxp/docs-pages.ts'
import type { Caller } from '../src/auth/caller.ts'
import { QuireError } from '../src/errors.ts'

const DOC_NAME = /^[a-z0-9-]{1,64}\.md$/
const unauthorized = (reply: FastifyReply, message: string): FastifyReply =>
  reply.code(401).send({ status: 'fail', code: 'AUTH_REQUIRED', message })

export default async function jxpDocsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const html = (reply: FastifyReply, text: string): FastifyReply => reply.type('text/html; charset=utf-8').send(text)

  /** The caller of the request's docs session; undefined without a session or with a key no longer valid. */
  async function sessionCaller(request: FastifyRequest): Promise<Caller | undefined> {
    const key = docsSessionKey(request)
    return key === undefined ? undefined : await app.credentials.sessions.callerForApiKey(key).catch(() => undefined)
  }
  const toLogin = (request: FastifyRequest, reply: FastifyReply): FastifyReply =>
    reply.redirect(`/docs/login?next=${encodeURIComponent(request.url.split('?')[0])}`, 302)

  app.get('/', { schema: { hide: true } }, async (_request, reply) =>
    html(reply, landingPage(app.config.apiDocsEnabled))
  )

  app.get(
    '/docs/md/:doc',
    { schema: { hide: true, params: Type.Object({ doc: Type.String({ maxLength: 80 }) }) } },
    async (request, reply) => {
      const { doc } = request.params
      if (!DOC_NAME.test(doc)) throw new QuireError('NOT_FOUND', `No guide ${doc.slice(0, 80)}`)
      const file = new URL(doc === 'api.md' ? 'README.md' : `docs/${doc}`, PACKAGE_ROOT)
      const text = await readFile(file, 'utf8').catch(() => {
        throw new QuireError('NOT_FOUND', `No guide ${doc}`)
      })
      return reply.type('text/markdown; charset=utf-8').send(text)
    }
  )

  app.get(
    '/docs/login',
    {
      schema: {
        hide: true,
        querystring: Type.Object({ next: Type.Optional(Type.String({ maxLength: 200, pattern: '^/docs/' })) })
      }
    },
    async (request, reply) => html(reply, loginPage(request.query.next ?? '/docs/api'))
  )

  app.post(
    '/docs/session',
    { config: { rateLimit: app.endpointLimit('login') }, schema: { hide: true } },
    async (request, reply) => {
      const body = (request.body ?? {}) as { apikey?: unknown; next?: unknown }
      const caller = isApiKeyShaped(body.apikey)
        ? await app.credentials.sessions.callerForApiKey(body.apikey).catch(() => undefined)
        : undefined
      if (caller === undefined) return unauthorized(reply, 'Unknown API key')
      setDocsSession(request, reply, body.apikey as string)
      const form = (request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')
      const next = typeof body.next === 'string' && body.next.startsWith('/docs/') ? body.next : '/docs/api'
      return form ? reply.redirect(next, 303) : { ok: true }
    }
  )

  app.get('/docs/session', { schema: { hide: true } }, async (request, reply) => {
    const key = docsSessionKey(request)
    if (key === undefined || (await sessionCaller(request)) === undefined)
      return unauthorized(reply, 'No docs session: log in at /docs/login')
    return { ok: true, apikey: key }
  })

  app.get('/docs/api', { schema: { hide: true } }, async (request, reply) => {
    const caller = await sessionCaller(request)
    if (caller === undefined) return toLogin(request, reply)
    return html(
      reply,
      referencePage(
        visibleModels(app.models, caller).map(model => ({ model, letters: lettersHeld(model, caller).join('') }))
      )
    )
  })

  app.get(
    '/docs/model/:name',
    { schema: { hide: true, params: Type.Object({ name: Type.String({ maxLength: 64 }) }) } },
    async (request, reply) => {
      const caller = await sessionCaller(request)
      if (caller === undefined) return toLogin(request, reply)
      const model = app.models.get(request.params.name)
      requireVisible(model, caller)
      return html(reply, modelPage(model))
    }
  )
}
