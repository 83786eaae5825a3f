// Converts one JXP (Mongoose) schema into a Quire model file: field types, links (to the
// lower-cased model names), arrays, nested objects, defaults, required fields, enums, indexes
// (index, unique, text -> fulltext) and perms; and says what needs a human: setters, validators,
// function defaults, map_to names, plugins, hooks and statics (stubbed in the model's code).
import type { FieldSpec, ModelFile } from '../../models/model-definition.ts'
import { SYSTEM_FIELDS } from '../../models/model-definition.ts'
import { evaluateLiteral, typeOf, unknownName } from './evaluate-literal.ts'
import type { SchemaSource } from './schema-source.ts'

/** `model` is undefined for JXP's user model: Quire's is built in. */
export interface Converted {
  model?: ModelFile
  code?: string
  report: string[]
}

const QUIRE_TYPES: Record<string, FieldSpec['type']> = {
  string: 'string',
  number: 'number',
  boolean: 'boolean',
  date: 'date',
  id: 'id'
}
const OPTION_KEYS = new Set([
  'type',
  'link',
  'map_to',
  'justOne',
  'index',
  'unique',
  'default',
  'required',
  'enum',
  'set',
  'get',
  'validate',
  'ref',
  'lowercase',
  'trim',
  'min',
  'max',
  'minlength',
  'maxlength'
])

interface Field {
  spec: FieldSpec
  required?: boolean
  index?: 'index' | 'unique'
  text?: boolean
}

const isPlain = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && typeOf(v) === undefined && unknownName(v) === undefined

export function convertSchema(source: SchemaSource, fallbackName: string): Converted {
  const report: string[] = []
  const name = (source.modelName ?? fallbackName).toLowerCase()
  const fields: Record<string, FieldSpec> = {}
  const required: string[] = []
  const indexes: NonNullable<ModelFile['indexes']> = []
  const fulltext: string[] = []

  function scalar(value: unknown, path: string): FieldSpec {
    const type = typeOf(value)
    if (type === 'mixed' || type === 'array') return type === 'array' ? { type: 'array' } : { type: 'object' }
    if (type !== undefined && QUIRE_TYPES[type] !== undefined) return { type: QUIRE_TYPES[type] }
    report.push(`${name}.${path}: type ${unknownName(value) ?? String(value)} is not known: made a string`)
    return { type: 'string' }
  }

  /** A field definition: a type, [definition], {type, ...options} or a nested object. */
  function field(def: unknown, path: string): Field {
    if (Array.isArray(def)) {
      if (def.length === 0) return { spec: { type: 'array' } }
      const item = field(def[0], `${path}[]`)
      const spec: FieldSpec = {
        type: 'array',
        ...(item.spec.type === 'object' && item.spec.properties === undefined ? {} : { items: item.spec })
      }
      if (item.spec.link !== undefined) {
        spec.link = item.spec.link
        spec.items = { type: 'id' }
      }
      return { spec }
    }
    if (isPlain(def) && 'type' in def) return withOptions(def, path)
    if (isPlain(def)) {
      const properties = Object.fromEntries(
        Object.entries(def).map(([key, inner]) => [key, field(inner, `${path}.${key}`).spec])
      )
      return { spec: { type: 'object', properties } }
    }
    return { spec: scalar(def, path) }
  }

  function withOptions(def: Record<string, unknown>, path: string): Field {
    const base = field(def.type, path)
    const spec: FieldSpec = { ...base.spec }
    const target = def.link ?? def.ref
    if (typeof target === 'string') {
      const linked = target.toLowerCase()
      if (spec.type === 'array') {
        spec.link = linked
        spec.items = { type: 'id' }
      } else {
        spec.type = 'id'
        spec.link = linked
      }
      const field = path.replace(/\[\]$/, '')
      if (typeof def.map_to === 'string' && def.map_to !== field.replace(/_id$/, ''))
        report.push(`${name}.${field}: map_to "${def.map_to}": Quire populates it as "${field.replace(/_id$/, '')}"`)
    }
    if (def.default !== undefined) {
      if (typeof def.default === 'function' || unknownName(def.default) !== undefined)
        report.push(
          `${name}.${path}: default ${unknownName(def.default) ?? 'function'} is code: set it in a hook (beforeCreate)`
        )
      else spec.default = def.default
    }
    if (Array.isArray(def.enum)) spec.enum = def.enum
    if (typeof def.minlength === 'number') spec.minLength = def.minlength
    if (typeof def.maxlength === 'number') spec.maxLength = def.maxlength
    if (typeof def.min === 'number') spec.minimum = def.min
    if (typeof def.max === 'number') spec.maximum = def.max
    for (const key of ['set', 'get', 'validate', 'lowercase', 'trim'])
      if (def[key] !== undefined) report.push(`${name}.${path}: ${key} is code: do it in a hook`)
    for (const key of Object.keys(def)) if (!OPTION_KEYS.has(key)) report.push(`${name}.${path}: option ${key} ignored`)
    const text = isPlain(def.index) && def.index.text === true
    return {
      spec,
      required: def.required === true,
      index: def.unique === true ? 'unique' : def.index === true ? 'index' : undefined,
      text
    }
  }

  const definitions = evaluateLiteral(source.fields) as Record<string, unknown>
  for (const [key, def] of Object.entries(definitions)) {
    if ((SYSTEM_FIELDS as readonly string[]).includes(key)) {
      report.push(`${name}.${key}: a system field in Quire: left out`)
      continue
    }
    const converted = field(def, key)
    // JXP hashes a field named password on every write; Quire hashes fields of type password.
    fields[key] = key === 'password' && converted.spec.type === 'string' ? { type: 'password' } : converted.spec
    if (converted.required === true) required.push(key)
    if (converted.index !== undefined)
      indexes.push({ fields: [key], ...(converted.index === 'unique' && { unique: true }) })
    if (converted.text === true) fulltext.push(key)
  }
  const options = source.options === undefined ? {} : (evaluateLiteral(source.options) as Record<string, unknown>)
  const perms = isPlain(options.perms) ? (options.perms as Record<string, string>) : undefined
  if (perms === undefined) report.push(`${name}: no perms: Quire lets only admins use it`)
  else
    for (const role of Object.keys(perms))
      if (!['admin', 'owner', 'user', 'all'].includes(role))
        report.push(`${name}: perms role "${role}" is a group in Quire (users get it with POST /groups/{user_id})`)
  if (Array.isArray(options.callable_statics))
    report.push(`${name}: callable_statics ${options.callable_statics.join(', ')}: exported as methods in ${name}.mjs`)
  if (isPlain(options.advanced_queries))
    report.push(
      `${name}: advanced_queries: Quire allows /query, /aggregate and /bulkwrite to whoever holds the letters`
    )
  for (const other of source.others) report.push(`${name}: ${other}: not converted`)
  const extra = Object.keys(fields).filter(key => !['email', 'password', 'name', 'admin', 'groups'].includes(key))
  if (name === 'user')
    report.push(
      "user: Quire's user model is built in (email, password, name, admin, groups): no user.json written" +
        (extra.length > 0
          ? `; its other fields (${extra.join(', ')}) have no place there: ` +
            'keep them in a model of your own linking to the user'
          : '')
    )

  const model: ModelFile = {
    name,
    description: `Converted from JXP's ${source.modelName ?? fallbackName} model by quire models from-jxp`,
    fields,
    ...(required.length > 0 && { required }),
    ...(indexes.length > 0 && { indexes }),
    ...(fulltext.length > 0 && { fulltext: { fields: fulltext } }),
    ...(perms !== undefined && { perms })
  }
  return {
    model: name === 'user' ? undefined : model,
    code: name === 'user' ? undefined : modelCode(source, options),
    report
  }
}

/** A model-code stub: each hook and static, with its JXP source in a comment, for a human to port. */
function modelCode(source: SchemaSource, options: Record<string, unknown>): string | undefined {
  if (source.hooks.length === 0 && source.statics.length === 0) return undefined
  const comment = (text: string): string =>
    text
      .split('\n')
      .map(line => `  // ${line}`)
      .join('\n')
  const hooks = source.hooks.map(
    h =>
      `  // JXP ${h.when}("${h.event}"): port ` +
      `to ${h.when === 'pre' ? 'beforeCreate/beforeUpdate' : 'afterCreate/afterUpdate'}\n${comment(h.source)}`
  )
  const callable = Array.isArray(options.callable_statics) ? (options.callable_statics as string[]) : []
  const methods = source.statics.map(
    s =>
      `  ${s.name}: {\n    letter: 'r',\n    description: 'JXP ` +
      `static ${s.name}${callable.includes(s.name) ? ' (callable)' : ''}: port its code',\n    run: () => ` +
      `{ throw new Error('${s.name}: not ported yet') }\n  }\n${comment(s.source)}`
  )
  return `// Model code converted by quire models from-jxp: port each JXP hook and static below (see the
// README's "Model code"); until then the hooks do nothing and the methods refuse.

export const hooks = {
${hooks.join('\n')}
}

export const methods = {
${methods.join(',\n')}
}
`
}
