// The shape of a model file (models/*.json), as a TypeBox schema, and the
// resolved model the rest of the service works with.
import { Type, type Static } from '@sinclair/typebox'
import { FIELD_TYPES } from './field-type-names.ts'

/** `mixed`: any JSON value (Mongoose's Mixed), checked no further. */
const FieldType = Type.Union(FIELD_TYPES.map(type => Type.Literal(type)))

export interface FieldSpec {
  type: Static<typeof FieldType>
  /** Target model of a link field (type "id", or "array" of "id"). */
  link?: string
  items?: FieldSpec
  properties?: Record<string, FieldSpec>
  required?: string[]
  enum?: unknown[]
  default?: unknown
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
  pattern?: string
  description?: string
}

const FieldSpecSchema = Type.Recursive(
  This =>
    Type.Object(
      {
        type: FieldType,
        link: Type.Optional(Type.String({ pattern: '^[a-z][a-z0-9_]{0,62}$' })),
        items: Type.Optional(This),
        properties: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_]{0,63}$' }), This)),
        required: Type.Optional(Type.Array(Type.String())),
        enum: Type.Optional(Type.Array(Type.Unknown(), { minItems: 1 })),
        default: Type.Optional(Type.Unknown()),
        minLength: Type.Optional(Type.Integer({ minimum: 0 })),
        maxLength: Type.Optional(Type.Integer({ minimum: 0 })),
        minimum: Type.Optional(Type.Number()),
        maximum: Type.Optional(Type.Number()),
        pattern: Type.Optional(Type.String()),
        description: Type.Optional(Type.String())
      },
      { additionalProperties: false }
    ),
  { $id: 'FieldSpec' }
)

const PermsSchema = Type.Record(
  Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
  Type.String({ pattern: '^[crud]*$' })
)

export const ModelFileSchema = Type.Object(
  {
    name: Type.String({ pattern: '^[a-z][a-z0-9_]{0,62}$' }),
    description: Type.Optional(Type.String()),
    fields: Type.Record(Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_]{0,63}$' }), FieldSpecSchema),
    required: Type.Optional(Type.Array(Type.String())),
    /** Accept fields the schema does not name (default false: they are a 400). */
    additionalFields: Type.Optional(Type.Boolean()),
    indexes: Type.Optional(
      Type.Array(
        Type.Object(
          {
            fields: Type.Array(Type.String(), { minItems: 1, maxItems: 8 }),
            unique: Type.Optional(Type.Boolean()),
            /**
             * Fields an aggregation over this index's matches reads: kept with it in a covering index (SQL engines).
             */
            include: Type.Optional(Type.Array(Type.String(), { minItems: 1, maxItems: 16 }))
          },
          { additionalProperties: false }
        )
      )
    ),
    fulltext: Type.Optional(
      Type.Object(
        {
          fields: Type.Array(Type.String(), { minItems: 1 }),
          language: Type.Optional(Type.String({ pattern: '^[a-z_]{1,32}$' }))
        },
        { additionalProperties: false }
      )
    ),
    perms: Type.Optional(PermsSchema)
  },
  { additionalProperties: false }
)

export type ModelFile = Static<typeof ModelFileSchema>

/** A declared index; `include`: fields a covering index keeps with it (src/compiler/ddl/covering-columns.ts). */
export interface ModelIndex {
  fields: string[]
  unique: boolean
  include?: string[]
}

/** A loaded, checked model. */
export interface Model {
  name: string
  /** The model file's description, shown by model discovery. */
  description?: string
  fields: Record<string, FieldSpec>
  required: string[]
  additionalFields: boolean
  indexes: ModelIndex[]
  fulltext?: { fields: string[]; language: string }
  perms: Record<string, string>
  /** Top-level fields holding bcrypt hashes: never returned. */
  passwordFields: string[]
  /** Link fields: name as stored, name it is populated under, target model, array or single. */
  links: Array<{ field: string; as: string; target: string; many: boolean }>
  /** Built in to the service (the user model): not loaded from MODELS_DIR. */
  builtIn?: boolean
}

/** Fields every document has, maintained by the service. */
export const SYSTEM_FIELDS = [
  '_id',
  'id',
  '_deleted',
  '_owner_id',
  'createdAt',
  'updatedAt',
  '__v',
  '_updated_by_id'
] as const

/** The system fields no client sets: a write's body drops them. */
export const READ_ONLY_SYSTEM_FIELDS: readonly string[] = [
  '_id',
  'id',
  'createdAt',
  'updatedAt',
  '__v',
  '_updated_by_id'
]

/** The system fields that hold dates (ISO 8601 text). */
export const DATE_SYSTEM_FIELDS: readonly string[] = ['createdAt', 'updatedAt']
