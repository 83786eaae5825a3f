// The engine-neutral query: MongoDB's own filter, sort, projection and update
// languages, as plain JSON values. Parsers produce it; engines consume it.

/** A MongoDB filter document, e.g. { foo: 'x', n: { $gt: 3 }, $or: [...] }. */
export type Filter = Record<string, unknown>

/** A MongoDB sort spec: field path -> 1 (ascending) or -1 (descending), in order. */
export type Sort = Array<[path: string, direction: 1 | -1]>

/** Field kinds a model schema can declare; compilers use them to choose index-friendly SQL. */
export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'date' | 'object' | 'array' | 'any'

/** Looks up the declared kind of a dotted field path; undefined when the schema says nothing. */
export type FieldKindLookup = (path: string) => FieldKind | undefined
