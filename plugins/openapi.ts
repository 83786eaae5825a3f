// The API described: OpenAPI 3.1 generated from the routes' schemas and the models
// (@fastify/swagger; one set of paths per model, src/openapi/model-paths.ts) at GET
// /openapi.json, and an interactive reference at /docs (@fastify/swagger-ui, served from the
// package's own files: no CDN, works offline). Off with API_DOCS_ENABLED=false. Routes appear
// with their schema's `summary` and `tags` (the first path segment when no tag is given), an
// operation id each (src/openapi/operation-ids.ts), and `servers` from PUBLIC_URL; the document
// passes `redocly lint` (test/http/service/openapi-lint.test.ts).
import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { ErrorResponse } from '../schemas/common.ts'
import { expandModelPaths, type OpenApiDocument } from '../src/openapi/model-paths.ts'
import { operationId } from '../src/openapi/operation-ids.ts'
import { packageVersion } from '../src/package-root.ts'

const DESCRIPTION =
  'A REST API over named collections of JSON documents ("models"), with users, login, tokens, ' +
  'API keys and per-model permissions. Each model has its own paths below. Errors are ' +
  '`{"status":"fail"|"error","code","message","details"?}` with a stable code. `PATCH` is answered 405 ' +
  '(use `PUT`, a partial update); `OPTIONS` 204 with `Allow`.'

const SECURITY_SCHEMES = {
  basic: {
    type: 'http',
    scheme: 'basic',
    description: 'email and password (verified credentials are cached: no bcrypt per request)'
  },
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description: 'a token from POST /login (24 h); POST /refresh takes the refresh token this way'
  },
  apikey: {
    type: 'apiKey',
    in: 'header',
    name: 'apikey',
    description: 'the permanent API key from POST /login (also X-API-Key, or ?apikey=)'
  },
  jwt: { type: 'apiKey', in: 'query', name: 'jwt', description: "a login link's JWT (POST /login/getjwt)" }
}

const errorAnswer = (description: string): Record<string, unknown> => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } }
})

declare module 'fastify' {
  interface FastifySchema {
    /**
     * A body the handler reads itself because it may be left out (POST /login with Basic): documented, not validated.
     */
    optionalBody?: unknown
  }
}

/**
 * Every operation may fail with the catalogue's envelope and has an operation id; the bodies
 * that may be left out (`optional`: "METHOD path" of the generic paths) say so.
 */
function finishOperations(document: OpenApiDocument, optional: Set<string>): OpenApiDocument {
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      // A copy each: the methods of one route (GET and POST /logout) share their operation object.
      item[method] = {
        ...operation,
        operationId: operation.operationId ?? operationId(method, path),
        ...(optional.has(`${method} ${path}`) && {
          requestBody: { ...(operation.requestBody as object), required: false }
        }),
        responses: {
          ...operation.responses,
          '4XX': { $ref: '#/components/responses/Failure' },
          '5XX': { $ref: '#/components/responses/Error' }
        }
      }
    }
  }
  return document
}

type RouteSchema = Record<string, unknown> & {
  tags?: string[]
  querystring?: { properties?: unknown }
  optionalBody?: unknown
}

/**
 * A route's schema as documented: tagged by its first path segment unless it says otherwise; an
 * open-ended query string (filter[...]: a record, no named properties) left to the per-model
 * parameters, since OpenAPI cannot describe it as a list of parameters; an optional body as its body.
 */
function documentedSchema(schema: RouteSchema | undefined, url: string): RouteSchema {
  const { querystring, optionalBody, ...rest } = schema ?? {}
  return {
    ...rest,
    ...(querystring?.properties ? { querystring } : {}),
    ...(optionalBody ? { body: optionalBody } : {}),
    tags: schema?.tags ?? [url.split('/')[1] || 'root']
  }
}

/** OpenAPI's spelling of a Fastify path: /users/:id -> /users/{id}. */
const openApiPath = (url: string): string => url.replace(/:(\w+)/g, '{$1}')

async function openApiPlugin(app: FastifyInstance): Promise<void> {
  if (!app.config.apiDocsEnabled) return
  const optionalBodies = new Set<string>()
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Quire',
        version: packageVersion(),
        description: DESCRIPTION,
        license: { name: 'MIT', identifier: 'MIT' }
      },
      // Relative to the address that served the document unless PUBLIC_URL says where clients reach the service.
      servers: [{ url: app.config.publicUrl ?? '/', description: app.config.publicUrl ? 'PUBLIC_URL' : 'this server' }],
      components: {
        securitySchemes: SECURITY_SCHEMES,
        schemas: { Error: ErrorResponse },
        responses: {
          Failure: errorAnswer('the request was refused (4xx): see code and message'),
          Error: errorAnswer('the server or the database failed (5xx)')
        }
      },
      // Anonymous calls are allowed where a model's perms say `all`.
      security: [{}, { basic: [] }, { bearer: [] }, { apikey: [] }, { jwt: [] }]
    } as Record<string, unknown>,
    transform: ({ schema, url, route }) => {
      if ((schema as RouteSchema | undefined)?.optionalBody)
        for (const method of [route.method].flat()) optionalBodies.add(`${method.toLowerCase()} ${openApiPath(url)}`)
      return { schema: documentedSchema(schema as RouteSchema, url) as typeof schema, url }
    },
    transformObject: generated =>
      'openapiObject' in generated
        ? (expandModelPaths(
            finishOperations(generated.openapiObject as OpenApiDocument, optionalBodies),
            app.models.all()
          ) as typeof generated.openapiObject)
        : generated.swaggerObject
  })
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { layout: 'BaseLayout', docExpansion: 'list', tryItOutEnabled: true, displayRequestDuration: true }
  })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}

export default fp(openApiPlugin, { name: 'openapi', dependencies: ['config'] })
