// A model file's field types as people write them: Quire's own names, and JXP's Mongoose names
// where their meaning is clear (String, Number, Date, Boolean, ObjectId, Mixed, [String]...),
// which are rewritten to Quire's before the file is checked. Any other name is a mistake that
// names the field, the valid types and the closest one.
import { closest } from 'fastest-levenshtein'

export const FIELD_TYPES = [
  'string',
  'number',
  'integer',
  'boolean',
  'date',
  'object',
  'array',
  'password',
  'id',
  'mixed'
] as const

/** Mongoose's names (and their usual spellings) for Quire's types. */
const MONGOOSE_NAMES: Record<string, string> = {
  String: 'string',
  Number: 'number',
  Date: 'date',
  Boolean: 'boolean',
  ObjectId: 'id',
  ObjectID: 'id',
  'Schema.Types.ObjectId': 'id',
  'mongoose.Schema.Types.ObjectId': 'id',
  Mixed: 'mixed',
  'Schema.Types.Mixed': 'mixed',
  Object: 'object',
  Array: 'array'
}

type Spec = Record<string, unknown>

/** Names that are not types but say which one was meant: only suggested, never taken. */
const NEAR_NAMES: Record<string, string> = {
  int: 'integer',
  text: 'string',
  bool: 'boolean',
  float: 'number',
  double: 'number',
  decimal: 'number',
  datetime: 'date',
  timestamp: 'date',
  json: 'object',
  any: 'mixed',
  list: 'array',
  objectid: 'id',
  email: 'string',
  uuid: 'string'
}

/** Every name a suggestion may start from (in lower case), with the Quire type it stands for. */
const CANDIDATES: Record<string, string> = {
  ...NEAR_NAMES,
  ...Object.fromEntries(Object.entries(MONGOOSE_NAMES).map(([name, type]) => [name.toLowerCase(), type])),
  ...Object.fromEntries(FIELD_TYPES.map(type => [type, type]))
}

/** Quire's name for a type name, or undefined when there is none. */
function quireType(name: string): string | undefined {
  if ((FIELD_TYPES as readonly string[]).includes(name)) return name
  return Object.hasOwn(MONGOOSE_NAMES, name) ? MONGOOSE_NAMES[name] : undefined
}

/** The error for a type name that is neither Quire's nor Mongoose's. */
function unknownType(path: string, name: string): Error {
  const suggestion = CANDIDATES[closest(name.toLowerCase(), Object.keys(CANDIDATES))]
  return new Error(
    `field ${path}: type ${JSON.stringify(name)} is not a field type; the types are ${FIELD_TYPES.join(', ')} ` +
      `(or Mongoose's String, Number, Date, Boolean, ObjectId, Mixed, [String]): did you mean "${suggestion}"?`
  )
}

/** One field spec with its type (and its items' and properties' types) in Quire's names. */
function rewriteSpec(path: string, spec: unknown): unknown {
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) return spec
  const { type, items, properties, ...rest } = spec as Spec
  const out: Spec = { ...rest }
  // [String] as text, or ["String"] as a JSON array: an array of that type.
  const listed =
    typeof type === 'string'
      ? /^\[(.+)\]$/.exec(type)?.[1]
      : Array.isArray(type) && type.length === 1 && typeof type[0] === 'string'
        ? type[0]
        : undefined
  if (listed !== undefined) {
    out.type = 'array'
    out.items = rewriteSpec(`${path}[]`, { type: listed })
  } else if (typeof type === 'string') {
    const known = quireType(type)
    if (known === undefined) throw unknownType(path, type)
    out.type = known
  } else if (type !== undefined) {
    out.type = type
  }
  if (items !== undefined) out.items = rewriteSpec(`${path}[]`, items)
  if (properties !== null && typeof properties === 'object' && !Array.isArray(properties)) {
    out.properties = Object.fromEntries(
      Object.entries(properties).map(([name, inner]) => [name, rewriteSpec(`${path}.${name}`, inner)])
    )
  } else if (properties !== undefined) {
    out.properties = properties
  }
  return out
}

/** A parsed model file with every field type in Quire's names; throws on an unknown type name. */
export function rewriteTypeNames(file: unknown): unknown {
  if (file === null || typeof file !== 'object' || Array.isArray(file)) return file
  const { fields } = file as Spec
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) return file
  return {
    ...file,
    fields: Object.fromEntries(Object.entries(fields).map(([name, spec]) => [name, rewriteSpec(name, spec)]))
  }
}
