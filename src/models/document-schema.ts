// Turns a model's field specs into JSON Schema and compiles validators for
// create (required fields enforced) and update (partial) bodies.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FieldSpec, Model } from './model-definition.ts'
import { ID_PATTERN } from '../ids.ts'

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

type JsonSchema = Record<string, unknown>

function specToSchema(spec: FieldSpec): JsonSchema {
  const { type, link, items, properties, required, ...rest } = spec
  switch (type) {
    case 'date':
      return { type: 'string', format: 'date-time', ...rest }
    case 'id':
      return { type: 'string', pattern: ID_PATTERN, ...rest }
    case 'password':
      return { type: 'string', minLength: 1, maxLength: 72, ...rest }
    case 'mixed':
      return rest
    case 'array':
      return { type: 'array', items: items ? specToSchema(items) : {}, maxItems: 10_000, ...rest }
    case 'object':
      return {
        type: 'object',
        ...(properties && { properties: mapSchemas(properties) }),
        ...(required && { required }),
        ...rest
      }
    default:
      return { type, ...rest }
  }
}

function mapSchemas(specs: Record<string, FieldSpec>): Record<string, JsonSchema> {
  return Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, specToSchema(spec)]))
}

/**
 * A top-level field may hold null (how JXP's clients clear a field) unless it is required or a
 * password: its type is a list with "null" (JSON Schema 2020-12 and OpenAPI 3.1 have no `nullable`).
 */
function topLevelSchema(model: Model, name: string, spec: FieldSpec): JsonSchema {
  const schema = specToSchema(spec)
  if (model.required.includes(name) || spec.type === 'password' || schema.type === undefined) return schema
  return { ...schema, type: [schema.type, 'null'], ...(Array.isArray(schema.enum) && { enum: [...schema.enum, null] }) }
}

/** JSON Schema of a document body; `partial` drops required fields (updates). */
export function documentSchema(model: Model, partial: boolean): JsonSchema {
  return {
    type: 'object',
    properties: Object.fromEntries(
      Object.entries(model.fields).map(([name, spec]) => [name, topLevelSchema(model, name, spec)])
    ),
    ...(!partial && model.required.length > 0 && { required: model.required }),
    additionalProperties: model.additionalFields
  }
}

export interface DocumentValidators {
  create: ValidateFunction
  update: ValidateFunction
}

function newAjv(coerce: boolean, useDefaults: boolean): Ajv {
  return addFormats(
    new Ajv({
      allErrors: true,
      strict: false,
      strictNumbers: true,
      useDefaults,
      ...(coerce && { coerceTypes: 'array' as const })
    })
  )
}

/** Create validators fill in defaults; update validators must not (a PUT would overwrite stored values). */
const AJV = {
  json: { create: newAjv(false, true), update: newAjv(false, false) },
  form: { create: newAjv(true, true), update: newAjv(true, false) }
}

/** Validators for JSON bodies, and (coercing strings to numbers/booleans) for urlencoded forms. */
export function compileValidators(model: Model): { json: DocumentValidators; form: DocumentValidators } {
  const build = (kind: 'json' | 'form'): DocumentValidators => ({
    create: AJV[kind].create.compile(documentSchema(model, false)),
    update: AJV[kind].update.compile(documentSchema(model, true))
  })
  return { json: build('json'), form: build('form') }
}

/** Client-facing descriptions of validation errors: [{field, message}]. */
export function describeErrors(errors: ErrorObject[] | null | undefined): Array<{ field: string; message: string }> {
  return (errors ?? []).slice(0, 20).map(e => {
    const extra =
      e.keyword === 'additionalProperties' ? `/${(e.params as { additionalProperty: string }).additionalProperty}` : ''
    const field = (e.instancePath + extra).replace(/^\//, '').replace(/\//g, '.') || '(body)'
    const message = e.keyword === 'additionalProperties' ? 'is not a field of this model' : (e.message ?? 'is invalid')
    return { field, message }
  })
}
