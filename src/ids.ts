// Document identifiers: 24 hex characters, generated like MongoDB ObjectIds
// (time-ordered, so sorting by _id is sorting by creation).
import { ObjectId } from 'bson'

/** A document id as a JSON Schema pattern (model schemas, OpenAPI). */
export const ID_PATTERN = '^[0-9a-f]{24}$'
const OBJECT_ID = new RegExp(ID_PATTERN)

export function newId(): string {
  return new ObjectId().toHexString()
}

export function isValidId(value: unknown): value is string {
  return typeof value === 'string' && OBJECT_ID.test(value)
}
