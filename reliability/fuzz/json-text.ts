// Generated JSON that JSON.stringify cannot write: objects whose own keys
// include "__proto__" (or repeat), raw number tokens such as 1e400 or -0, and
// nesting thousands deep. The fuzz builds bodies as these trees, then as text.

export type Json = null | boolean | number | string | Json[] | JsonObject | RawJson

/** An object as an ordered list of entries: any key, "__proto__" and duplicates included. */
export class JsonObject {
  constructor(readonly entries: Array<[string, Json]>) {}
}

/** Text put into the JSON as it is (a number token, a deeply nested value). */
export class RawJson {
  constructor(readonly text: string) {}
}

export function obj(entries: Array<[string, Json]>): JsonObject {
  return new JsonObject(entries)
}

/** `depth` nested arrays or objects, as raw text (no recursion when writing it). */
export function deeplyNested(depth: number, kind: 'array' | 'object'): RawJson {
  return kind === 'array'
    ? new RawJson('['.repeat(depth) + ']'.repeat(depth))
    : new RawJson('{"a":'.repeat(depth) + '1' + '}'.repeat(depth))
}

export function toJsonText(value: Json): string {
  if (value instanceof RawJson) return value.text
  if (value instanceof JsonObject)
    return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`).join(',')}}`
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`
  return JSON.stringify(value) ?? 'null'
}
