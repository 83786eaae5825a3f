// Request bodies of the document routes. Document fields themselves are checked
// against each model's own schema (src/models/document-schema.ts).
import { Type } from '@sinclair/typebox'

export const DocumentBody = Type.Object({}, { additionalProperties: true })

export const QueryBody = Type.Object(
  {
    query: Type.Optional(Type.Object({}, { additionalProperties: true }))
  },
  { additionalProperties: false }
)
