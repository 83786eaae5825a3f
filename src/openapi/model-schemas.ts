// A model as OpenAPI sees it: the document it returns (system fields, populated links, no
// password fields), the bodies it accepts (create and partial update) and the list parameters
// of GET /api/{model} (filters, sort, fields, populate, paging, full-text search).
import type { Model } from '../models/model-definition.ts'
import type { SYSTEM_FIELDS } from '../models/model-definition.ts'
import { documentSchema } from '../models/document-schema.ts'
import { hiddenFields } from '../permissions/field-policy.ts'
import { COUNT_MODES } from '../query/plan-list.ts'
import { ID_PATTERN } from '../ids.ts'

export type JsonSchema = Record<string, unknown>

const OBJECT_ID = { type: 'string', pattern: ID_PATTERN }
const DATE_TIME = { type: 'string', format: 'date-time' }

/** Component names: the document schema is the model's name; its bodies add a suffix (model names have no dots). */
export const schemaName = {
  document: (model: Model): string => model.name,
  create: (model: Model): string => `${model.name}.create`,
  update: (model: Model): string => `${model.name}.update`
}

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` })

const SYSTEM_PROPERTIES: Record<(typeof SYSTEM_FIELDS)[number], JsonSchema> = {
  _id: { ...OBJECT_ID, description: 'the document id' },
  id: { ...OBJECT_ID, description: 'the same as _id' },
  _deleted: { type: 'boolean', description: 'soft-deleted (shown with showDeleted=true only)' },
  _owner_id: {
    ...OBJECT_ID,
    type: ['string', 'null'],
    description: 'the user who created it (null for a document imported or written by the service itself)'
  },
  createdAt: DATE_TIME,
  updatedAt: DATE_TIME,
  __v: { type: 'integer', description: 'bumped by every write' },
  _updated_by_id: { ...OBJECT_ID, description: 'the user who wrote it last (null: the service itself)' }
}

/** The document a read returns: the model's fields without password fields, the system fields and populated links. */
export function documentOutputSchema(model: Model): JsonSchema {
  const input = documentSchema(model, true) as { properties: Record<string, JsonSchema> }
  const hidden = new Set(hiddenFields(model))
  const fields = Object.fromEntries(Object.entries(input.properties).filter(([name]) => !hidden.has(name)))
  const links = Object.fromEntries(
    model.links.map(link => [
      link.as,
      {
        ...(link.many ? { type: 'array', items: ref(link.target) } : { anyOf: [ref(link.target), { type: 'null' }] }),
        description: `the ${link.target} document(s) of ${link.field}, when populate asks for them`
      }
    ])
  )
  return {
    type: 'object',
    properties: { ...SYSTEM_PROPERTIES, ...fields, ...links },
    required: ['_id', 'id'],
    additionalProperties: model.additionalFields
  }
}

/** A body that creates (`partial` false) or updates a document; password fields are write-only. */
export function documentInputSchema(model: Model, partial: boolean): JsonSchema {
  const schema = documentSchema(model, partial) as { properties: Record<string, JsonSchema> }
  for (const name of hiddenFields(model))
    schema.properties[name] = { ...schema.properties[name], format: 'password', writeOnly: true }
  return schema
}

const queryParameter = (name: string, schema: JsonSchema, description: string): JsonSchema => ({
  name,
  in: 'query',
  required: false,
  schema,
  description
})

/** The URL parameters of a list (GET /api/{model}, /count and /query take the filters too). */
export function listParameters(model: Model): JsonSchema[] {
  const fields = Object.keys(model.fields).filter(name => !hiddenFields(model).includes(name))
  const parameters = [
    {
      ...queryParameter(
        'filter',
        {
          type: 'object',
          properties: Object.fromEntries(fields.map(f => [f, { type: 'string' }])),
          additionalProperties: { type: 'string' }
        },
        'filter[field]=value (exact, coerced by the schema), or an operator: $gt:, $gte:, $lt:, $lte:, ' +
          '$ne:, $in:[a,b], $nin:, $exists:, $regex:/re/flags; dotted paths reach nested fields; ' +
          'search[field]=text is a case-insensitive substring'
      ),
      style: 'deepObject',
      explode: true,
      // No sample filter: a reader trying a list should get the list, not a filter on every field.
      example: {}
    },
    queryParameter('sort', { type: 'string' }, 'fields to sort by, comma-separated; - for descending: -createdAt,foo'),
    queryParameter('fields', { type: 'string' }, 'only these fields (comma-separated); _id and id always come'),
    queryParameter(
      'populate',
      { type: 'string' },
      `link fields to fill in: ${model.links.map(l => l.as).join(', ') || '(this model has none)'}`
    ),
    queryParameter('autopopulate', { type: 'boolean' }, 'fill in every link'),
    queryParameter('limit', { type: 'integer', minimum: 1 }, 'page size (default 100, at most 1000)'),
    queryParameter('page', { type: 'integer', minimum: 1 }, 'page number, from 1'),
    queryParameter(
      'showDeleted',
      { type: 'boolean' },
      'soft-deleted documents too (needs the right to delete any document of the model)'
    ),
    queryParameter(
      'count',
      { type: 'string', enum: [...COUNT_MODES] },
      'how `count` is made. Left out: exact up to EXACT_COUNT_LIMIT documents in the collection, -1 ' +
        'above. `exact`: counted whatever the size (O(matching rows), ' +
        "within STATEMENT_TIMEOUT_MS); `planned`: the query planner's estimate from its statistics (no " +
        'scan, may be far off; `count_estimated: true`); ' +
        '`estimated`: exact up to the limit, planned above'
    )
  ]
  if (model.fulltext)
    parameters.push(
      queryParameter(
        'search',
        { type: 'string' },
        `full-text search on ${model.fulltext.fields.join(', ')} (words, "phrases", -not, or); ranked, with a score`
      )
    )
  return parameters
}

/** A list answer: the page and its paging fields. */
export function listResponseSchema(model: Model): JsonSchema {
  return {
    type: 'object',
    properties: {
      count: {
        type: 'integer',
        description: 'matching documents; -1 above EXACT_COUNT_LIMIT (see the count parameter)'
      },
      count_estimated: {
        type: 'boolean',
        description: "count is the query planner's estimate (count=planned or estimated)"
      },
      limit: { type: 'integer' },
      page: { type: 'integer' },
      page_count: { type: 'integer' },
      limit_capped: { type: 'boolean' },
      next: { type: 'string', description: "the next page's URL (absent on the last page)" },
      prev: { type: 'string', description: "the previous page's URL (absent on the first page)" },
      data: { type: 'array', items: ref(schemaName.document(model)) }
    },
    required: ['data']
  }
}
