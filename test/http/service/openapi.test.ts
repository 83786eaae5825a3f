// The OpenAPI 3.1 description: a valid document (checked by an OpenAPI validator) that lists every
// route the app registers, with each model's own paths, document schema, list parameters and
// error shapes; the documented schema matches what the API returns. /docs is served from local
// files; API_DOCS_ENABLED=false turns both off.
import t, { type Test } from 'tap'
import { channel } from 'node:diagnostics_channel'
import { validate, compileErrors } from '@readme/openapi-parser'
import { Ajv2020 } from 'ajv/dist/2020.js'
import type { FastifyInstance, RouteOptions } from 'fastify'
import { createTestApp } from '../../helpers/test-app.ts'

interface Operation {
  operationId?: string
  parameters?: Array<{ name: string; in: string; style?: string }>
  responses: Record<string, unknown>
  requestBody?: unknown
}
interface Document {
  openapi: string
  paths: Record<string, Record<string, Operation>>
  components: {
    schemas: Record<string, { properties?: Record<string, { writeOnly?: boolean }> }>
    requestBodies: Record<
      string,
      { content: Record<string, { schema: { properties: Record<string, { writeOnly?: boolean }> } }> }
    >
  }
}

/** Every route registered by the next app built (Fastify announces each new instance on this channel). */
function collectRoutes(t: Test): RouteOptions[] {
  const routes: RouteOptions[] = []
  const onInstance = (message: unknown): void => {
    ;(message as { fastify: FastifyInstance }).fastify.addHook('onRoute', route => {
      routes.push(route)
    })
  }
  channel('fastify.initialization').subscribe(onInstance)
  t.teardown(() => channel('fastify.initialization').unsubscribe(onInstance))
  return routes
}

/** Routes a reader has no use for: HEAD twins, the catch-alls, the docs' own files. */
const undocumented = (route: RouteOptions): boolean =>
  route.method === 'HEAD' || (route.schema as { hide?: boolean } | undefined)?.hide === true

t.test('a valid OpenAPI 3.1 document listing every route, one set of paths per model', async t => {
  const routes = collectRoutes(t)
  const { app } = await createTestApp(t, 'postgres', { metricsEnabled: true })
  const res = await app.inject('/openapi.json')
  t.equal(res.statusCode, 200)
  const doc = res.json() as Document
  t.equal(doc.openapi, '3.1.0')

  const result = await validate(structuredClone(doc) as never)
  t.ok(result.valid, result.valid ? 'valid' : compileErrors(result))

  const models = app.models.all().map(m => m.name)
  const expected = routes
    .filter(r => !undocumented(r))
    .flatMap(r =>
      [r.method].flat().map(method => {
        const path = r.url.replace(/:(\w+)/g, '{$1}')
        return path.includes('{model}')
          ? models.map(m => `${method.toLowerCase()} ${path.replace('{model}', m)}`)
          : [`${method.toLowerCase()} ${path}`]
      })
    )
    .flat()
    .sort()
  const documented = Object.entries(doc.paths)
    .flatMap(([path, item]) => Object.keys(item).map(method => `${method} ${path}`))
    .sort()
  t.same(documented, expected, 'every route is documented, and nothing else')
  t.ok(documented.includes('get /metrics') && documented.includes('get /ready') && documented.includes('post /login'))
  t.notOk(
    documented.some(d => d.includes('{model}')),
    'no generic {model} path is left'
  )

  const ids = Object.values(doc.paths)
    .flatMap(item => Object.values(item).map(op => op.operationId))
    .filter(Boolean)
  t.equal(new Set(ids).size, ids.length, 'operation ids are unique')
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item))
      t.ok(op.responses['4XX'] && op.responses['5XX'], `${method} ${path} documents its error shapes`)
  }
})

t.test('each model has its document schema, bodies and list parameters', async t => {
  const { app } = await createTestApp(t, 'postgres')
  const doc = (await app.inject('/openapi.json')).json() as Document
  const list = doc.paths['/api/test'].get
  const names = list.parameters!.map(p => p.name)
  for (const name of ['filter', 'sort', 'fields', 'populate', 'limit', 'page', 'showDeleted', 'search'])
    t.ok(names.includes(name), `GET /api/test takes ${name}`)
  t.equal(list.parameters!.find(p => p.name === 'filter')!.style, 'deepObject', 'filter[field]=value')
  t.notOk(
    doc.paths['/api/link'].get.parameters!.some(p => p.name === 'search'),
    'no full-text search on a model without a full-text index'
  )
  t.ok(doc.paths['/api/test'].post.requestBody, "POST takes the model's body")
  const testSchema = doc.components.schemas.test
  t.ok(
    testSchema.properties!.foo && testSchema.properties!._id && testSchema.properties!.link,
    'fields, system fields and populated links'
  )
  t.notOk(testSchema.properties!.password, 'password fields are never returned')
  t.equal(
    doc.components.requestBodies['test.create'].content['application/json'].schema.properties.password.writeOnly,
    true,
    'but may be written'
  )
})

t.test('the documented schemas describe what the API returns', async t => {
  const { app, admin } = await createTestApp(t, 'postgres')
  const doc = (await app.inject('/openapi.json')).json() as Document
  const link = (
    await app.inject({
      method: 'POST',
      url: '/api/link',
      headers: { authorization: admin },
      payload: { name: 'a link', val: 1 }
    })
  ).json().data
  await app.inject({
    method: 'POST',
    url: '/api/test',
    headers: { authorization: admin },
    payload: { foo: 'x', yack: { s: 'y', n: 2 }, link_id: link._id, password: 'secret-pass' }
  })
  const ajv = new Ajv2020({ strict: false })
  ajv.addSchema(doc as object, 'openapi.json')
  const check = (pointer: string, value: unknown, label: string): void => {
    const valid = ajv.validate({ $ref: `openapi.json#${pointer}` }, value)
    t.ok(valid, `${label}${valid ? '' : `: ${ajv.errorsText()}`}`)
  }
  const listPointer = '/paths/~1api~1test/get/responses/200/content/application~1json/schema'
  check(listPointer, (await app.inject('/api/test?populate=link')).json(), 'a populated list page')
  const failure = await app.inject('/api/test/not-an-id')
  t.equal(failure.statusCode, 400)
  check('/components/schemas/Error', failure.json(), 'an error')
})

t.test("/docs is served from the package's own files", async t => {
  const { app } = await createTestApp(t, 'postgres')
  const page = await app.inject('/docs/')
  t.equal(page.statusCode, 200)
  t.match(page.body, /swagger-ui-bundle\.js/)
  t.notMatch(page.body, /https?:\/\//, 'no script or style from another site')
  const bundle = await app.inject('/docs/static/swagger-ui-bundle.js')
  t.equal(bundle.statusCode, 200)
  t.ok(bundle.body.length > 100_000, 'the bundle itself')
})

t.test('API_DOCS_ENABLED=false serves neither', async t => {
  const { app } = await createTestApp(t, 'postgres', { apiDocsEnabled: false })
  t.equal((await app.inject('/openapi.json')).statusCode, 404)
  t.equal((await app.inject('/docs/')).statusCode, 404)
})
