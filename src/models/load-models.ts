// Loads model files (models/*.json), checks them against the model file schema
// and against each other (links, indexes), and resolves them into Models. A mistake is a
// StartupError: one line naming the file (and the line and column of a JSON syntax error).
import { readdirSync, readFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { Value } from '@sinclair/typebox/value'
import {
  DATE_SYSTEM_FIELDS,
  ModelFileSchema,
  SYSTEM_FIELDS,
  type FieldSpec,
  type Model,
  type ModelFile
} from './model-definition.ts'
import { rewriteTypeNames } from './field-type-names.ts'
import { StartupError } from '../startup-error.ts'
import { MAX_INCLUDED_TEXT, fieldSpecAt, includedTextLength, uncoverableReason } from './field-kinds.ts'

const LINK_SUFFIX = /_ids?$/

function linkTarget(spec: FieldSpec): { target: string; many: boolean } | undefined {
  if (spec.link && spec.type === 'array') return { target: spec.link, many: true }
  if (spec.link) return { target: spec.link, many: false }
  return undefined
}

/** Paths of password fields nested inside objects or arrays (only top-level ones are hashed and hidden). */
function nestedPasswordFields(specs: Record<string, FieldSpec>, prefix = ''): string[] {
  return Object.entries(specs).flatMap(([name, spec]) => {
    const inner = { ...spec.properties, ...(spec.items && { '[]': spec.items }) }
    const path = `${prefix}${name}`
    const nested = Object.entries(inner)
      .filter(([, s]) => s.type === 'password')
      .map(([n]) => `${path}.${n}`)
    return [...nested, ...nestedPasswordFields(inner, `${path}.`)]
  })
}

/** Turns a checked model file into a Model; throws with the file's name on a mistake. */
export function resolveModel(file: ModelFile): Model {
  const problems: string[] = []
  for (const name of Object.keys(file.fields)) {
    if ((SYSTEM_FIELDS as readonly string[]).includes(name)) problems.push(`field ${name} is a system field`)
  }
  const links: Model['links'] = []
  for (const [field, spec] of Object.entries(file.fields)) {
    const link = linkTarget(spec)
    if (!link) continue
    if (!LINK_SUFFIX.test(field)) problems.push(`link field ${field} must end in _id or _ids`)
    links.push({ field, as: field.replace(LINK_SUFFIX, ''), ...link })
  }
  const draft: Model = {
    name: file.name,
    ...(file.description !== undefined && { description: file.description }),
    fields: file.fields,
    required: file.required ?? [],
    additionalFields: file.additionalFields ?? false,
    indexes: (file.indexes ?? []).map(i => ({
      fields: i.fields,
      unique: i.unique ?? false,
      ...(i.include && { include: i.include })
    })),
    fulltext: file.fulltext && { fields: file.fulltext.fields, language: file.fulltext.language ?? 'english' },
    perms: file.perms ?? {},
    passwordFields: Object.entries(file.fields)
      .filter(([, s]) => s.type === 'password')
      .map(([n]) => n),
    links
  }
  for (const path of nestedPasswordFields(file.fields)) {
    problems.push(`password field ${path} must be a top-level field (only those are hashed and never returned)`)
  }
  for (const r of draft.required) if (!file.fields[r]) problems.push(`required field ${r} is not defined`)
  for (const index of draft.indexes) {
    for (const f of index.fields)
      if (!fieldSpecAt(draft, f) && f !== '_owner_id' && !DATE_SYSTEM_FIELDS.includes(f))
        problems.push(`index field ${f} is not defined`)
  }
  for (const index of draft.indexes.filter(i => i.include !== undefined)) {
    for (const f of [...index.fields, ...(index.include ?? [])]) {
      const reason = uncoverableReason(draft, f)
      if (reason !== undefined) problems.push(`covering index field ${f} ${reason}`)
    }
    const text = (index.include ?? [])
      .map(f => [f, includedTextLength(draft, f)] as const)
      .filter(([, n]) => n !== undefined)
    if (text.reduce((sum, [, n]) => sum + (n ?? 0), 0) > MAX_INCLUDED_TEXT) {
      problems.push(
        `the string fields a covering index includes (${text.map(([f]) => f).join(', ')}) need a ` +
          `maxLength, ${MAX_INCLUDED_TEXT} characters at most together (an index entry holds about 2.7 KB)`
      )
    }
  }
  for (const f of draft.fulltext?.fields ?? []) {
    if (fieldSpecAt(draft, f)?.type !== 'string') problems.push(`full-text field ${f} must be a string field`)
  }
  if (problems.length) throw new Error(`model ${file.name}: ${problems.join('; ')}`)
  return draft
}

/** Checks that every link points at a known model. */
function checkLinks(models: Map<string, Model>): void {
  for (const model of models.values()) {
    for (const link of model.links) {
      if (!models.has(link.target))
        throw new Error(`model ${model.name}: link ${link.field} points at unknown model ${link.target}`)
    }
  }
}

/**
 * Where JSON.parse stopped: its message gives the position, or (V8's "Unexpected token 'x'",
 * with up to 10 characters of context on each side) the context to find it by; the end otherwise.
 */
function syntaxPosition(text: string, message: string): number {
  const position = /at position (\d+)/.exec(message)
  if (position) return Number(position[1])
  const token = /^Unexpected token '(.)', (\.\.\.)?"([\s\S]*)"(\.\.\.)? is not valid JSON$/.exec(message)
  if (!token) return text.length
  const [, char, cutBefore, context, cutAfter] = token
  const offset = cutBefore ? 10 : cutAfter ? context.length - 10 : context.indexOf(char)
  for (let at = text.indexOf(context); at >= 0; at = text.indexOf(context, at + 1))
    if (text[at + offset] === char) return at + offset
  return text.length
}

/** What follows the reason in JSON.parse's messages (the text quoted, or the position): left out. */
const JSON_ERROR_TAIL = /, (\.\.\.)?"[\s\S]*is not valid JSON$| in JSON at position \d+[\s\S]*$/

/** A JSON syntax error's place: `line L, column C`. */
function syntaxPlace(text: string, message: string): string {
  const before = text.slice(0, syntaxPosition(text, message)).split('\n')
  return `line ${before.length}, column ${before[before.length - 1].length + 1}`
}

/** Parses and checks one model file's JSON text; field types may use Mongoose's names (field-type-names.ts). */
export function parseModelFile(text: string, source: string): Model {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (err) {
    const message = (err as Error).message
    throw new StartupError(
      `${source}: not valid JSON at ${syntaxPlace(text, message)}: ${message.replace(JSON_ERROR_TAIL, '')}`
    )
  }
  let json: unknown
  try {
    json = rewriteTypeNames(parsed)
  } catch (err) {
    throw new StartupError(`${source}: ${(err as Error).message}`)
  }
  if (!Value.Check(ModelFileSchema, json)) {
    const first = [...Value.Errors(ModelFileSchema, json)].slice(0, 3).map(e => `${e.path || '/'} ${e.message}`)
    throw new StartupError(`${source}: not a valid model file: ${first.join('; ')}`)
  }
  try {
    return resolveModel(json)
  } catch (err) {
    throw new StartupError(`${source}: ${(err as Error).message}`)
  }
}

/** Loads every *.json model in a directory (none when it does not exist), plus built-in models. */
export function loadModels(dir: string, builtIns: Model[] = []): Map<string, Model> {
  const models = new Map<string, Model>(builtIns.map(m => [m.name, m]))
  const files = existsSync(dir)
    ? readdirSync(dir)
        .filter(f => f.endsWith('.json'))
        .sort()
    : []
  for (const file of files) {
    const model = parseModelFile(readModelFile(join(dir, file)), join(dir, file))
    if (models.has(model.name))
      throw new StartupError(`${join(dir, file)}: model ${model.name} is defined twice (or is built in)`)
    models.set(model.name, model)
  }
  try {
    checkLinks(models)
  } catch (err) {
    throw new StartupError(`${dir}: ${(err as Error).message}`)
  }
  return models
}

function readModelFile(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (err) {
    throw new StartupError(
      `${path}: cannot read the model file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`
    )
  }
}
