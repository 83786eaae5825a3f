// Turns the routes' generic paths (/api/{model}, /count/{model}, ...) into one set of paths per
// model, each with that model's document schema, bodies and list parameters, so that a reader
// (and a client generator) sees `GET /api/test` returning test documents. A route summary may
// say `{model}`: each copy names its model. The bodies are request bodies of their own
// (components/requestBodies): generators then read a field's `default` as "may be left out".
import type { Model } from '../models/model-definition.ts'
import { operationId } from './operation-ids.ts'
import {
  documentInputSchema,
  documentOutputSchema,
  listParameters,
  listResponseSchema,
  ref,
  schemaName,
  type JsonSchema
} from './model-schemas.ts'

type Operation = JsonSchema & { parameters?: JsonSchema[]; responses?: Record<string, JsonSchema>; summary?: string }
type PathItem = Record<string, Operation>
export interface OpenApiDocument {
  paths?: Record<string, PathItem>
  components?: { schemas?: Record<string, JsonSchema>; requestBodies?: Record<string, JsonSchema> }
  tags?: Array<{ name: string; description?: string }>
}

const json = (schema: JsonSchema): JsonSchema => ({ content: { 'application/json': { schema } } })
const answer = (description: string, schema: JsonSchema): JsonSchema => ({ description, ...json(schema) })
const bodyRef = (name: string): JsonSchema => ({ $ref: `#/components/requestBodies/${name}` })
const body = (schema: JsonSchema): JsonSchema => ({
  required: true,
  content: { 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema } }
})
const writeAnswer = (model: Model): JsonSchema => ({
  type: 'object',
  properties: { status: { const: 'ok' }, message: { type: 'string' }, data: ref(schemaName.document(model)) },
  required: ['status', 'message']
})

/** What each generic operation becomes for one model, keyed by "METHOD path". */
const SPECIFICS: Record<string, (model: Model) => Partial<Operation>> = {
  'get /api/{model}': model => ({
    parameters: listParameters(model),
    responses: { 200: answer('a page of documents', listResponseSchema(model)) }
  }),
  'get /api/{model}/{id}': model => ({
    parameters: listParameters(model).filter(p => ['fields', 'populate', 'autopopulate'].includes(p.name as string)),
    responses: {
      200: answer('the document', {
        type: 'object',
        properties: { data: ref(schemaName.document(model)) },
        required: ['data']
      })
    }
  }),
  'post /api/{model}': model => ({
    requestBody: bodyRef(schemaName.create(model)),
    responses: { 200: answer('created', writeAnswer(model)) }
  }),
  'put /api/{model}/{id}': model => ({
    requestBody: bodyRef(schemaName.update(model)),
    responses: { 200: answer('updated (a partial merge); {"_deleted": false} restores', writeAnswer(model)) }
  }),
  'post /update/{model}/{id}': model => SPECIFICS['put /api/{model}/{id}'](model),
  'delete /api/{model}/{id}': () => ({
    parameters: [
      queryFlag('_permaDelete', 'remove the document for good instead of a soft delete'),
      queryFlag(
        '_cascade',
        'also delete (soft, or for good with _permaDelete) the documents that link to it; without it, a ' +
          'linked document is a 409'
      )
    ],
    responses: {
      200: answer('deleted', { type: 'object', properties: { status: { const: 'ok' }, message: { type: 'string' } } })
    }
  }),
  'get /csv/{model}': model => ({
    parameters: listParameters(model).filter(p => p.name !== 'count'),
    responses: {
      200: {
        description: 'the list as CSV (an attachment): a header row, nested fields as dotted columns',
        content: { 'text/csv': { schema: { type: 'string' } } }
      }
    }
  }),
  'get /changes/{model}': model => ({
    parameters: listParameters(model).filter(p => ['filter', 'search'].includes(p.name as string)),
    responses: {
      200: {
        description:
          'a stream of change events (create, update, soft_delete, restore, delete) with ids for ' +
          'Last-Event-ID; see docs/changes.md',
        content: { 'text/event-stream': { schema: { type: 'string' } } }
      }
    }
  }),
  'get /count/{model}': model => ({
    parameters: listParameters(model).filter(p => ['filter', 'search', 'showDeleted'].includes(p.name as string))
  }),
  'post /query/{model}': model => ({
    parameters: listParameters(model).filter(p => p.name !== 'filter' && p.name !== 'search'),
    responses: { 200: answer('a page of documents', listResponseSchema(model)) }
  }),
  'post /aggregate/{model}': model => ({
    parameters: listParameters(model).filter(p => p.name === 'showDeleted'),
    responses: {
      200: answer("the pipeline's output documents", {
        type: 'object',
        properties: { data: { type: 'array', items: { type: 'object' } } }
      })
    }
  })
}

const queryFlag = (name: string, description: string): JsonSchema => ({
  name,
  in: 'query',
  required: false,
  schema: { type: 'string', enum: ['1', 'true'] },
  description
})

/** One model's copy of a generic operation. */
function operationFor(model: Model, method: string, path: string, generic: Operation): Operation {
  const { parameters = [], responses = {}, summary, ...rest } = structuredClone(generic)
  const specific = SPECIFICS[`${method} ${path}`]?.(model) ?? {}
  return {
    ...rest,
    tags: [model.name],
    summary: summary?.replaceAll('{model}', model.name),
    operationId: operationId(method, path, model.name),
    // The routes' own query schema is open-ended (filter[...]); a model's list parameters replace it.
    parameters: [
      ...parameters.filter(p => p.name !== 'model' && (specific.parameters === undefined || p.in !== 'query')),
      ...(specific.parameters ?? [])
    ],
    ...(specific.requestBody ? { requestBody: specific.requestBody } : {}),
    responses: { ...responses, ...specific.responses }
  }
}

/** A model's paths first (its documents, then the rest), models from MODELS_DIR before the built-in ones. */
function modelOrder(models: Model[], generic: string[]): Array<[Model, string]> {
  const byPath = [...generic].sort(
    (a, b) => Number(!a.startsWith('/api/')) - Number(!b.startsWith('/api/')) || a.length - b.length
  )
  const ordered = [...models].sort((a, b) => Number(a.builtIn ?? false) - Number(b.builtIn ?? false))
  return ordered.flatMap(model => byPath.map(path => [model, path] as [Model, string]))
}

/** Replaces every path with a {model} segment by one path per model, and adds the models' schemas and tags. */
export function expandModelPaths<T extends OpenApiDocument>(document: T, models: Model[]): T {
  const all = Object.entries(document.paths ?? {})
  const paths: Record<string, PathItem> = {}
  for (const [model, path] of modelOrder(
    models,
    all.map(([p]) => p).filter(p => p.includes('{model}'))
  )) {
    const copy = (paths[path.replace('{model}', model.name)] ??= {})
    for (const [method, operation] of Object.entries(document.paths![path]))
      copy[method] = operationFor(model, method, path, operation)
  }
  for (const [path, item] of all) if (!path.includes('{model}')) paths[path] = item
  const schemas = Object.fromEntries(models.map(model => [schemaName.document(model), documentOutputSchema(model)]))
  const requestBodies = Object.fromEntries(
    models.flatMap(model => [
      [schemaName.create(model), body(documentInputSchema(model, false))],
      [schemaName.update(model), body(documentInputSchema(model, true))]
    ])
  )
  const tags = modelOrder(models, ['']).map(([model]) => ({
    name: model.name,
    description: `Documents of the model ${model.name}`
  }))
  return {
    ...document,
    paths,
    tags: [...tags, ...(document.tags ?? [])],
    components: {
      ...document.components,
      schemas: { ...document.components?.schemas, ...schemas },
      requestBodies: { ...document.components?.requestBodies, ...requestBodies }
    }
  }
}
