// Describes models for discovery (GET /model, GET /model/{name}) in JXP's shapes: the
// list has one entry per model ({model, file, perms}, plus Quire's fields, links,
// indexes, full-text fields and method names); one model is described path by path as
// Mongoose's schema.paths are ({path, instance, options, isRequired, ...}), which JXP
// front ends read. Password fields show their type, never a default value.
import type { FieldSpec, Model, ModelIndex } from './model-definition.ts'

export interface ModelEntry {
  model: string
  file: string | null
  perms: Record<string, string>
  description?: string
  /** The letters the asking caller holds on the model. */
  letters: string
  fields: Record<string, FieldSpec>
  required: string[]
  links: Array<{ field: string; as: string; model: string; many: boolean }>
  indexes: ModelIndex[]
  fulltext: string[]
  methods: Array<{ name: string; letter: string; description?: string }>
}

export interface PathDescription {
  path: string
  instance: string
  isRequired: boolean
  options: { type: string; [option: string]: unknown }
  caster?: { instance: string }
  enumValues?: unknown[]
  defaultValue?: unknown
}

const INSTANCES: Record<FieldSpec['type'], string> = {
  string: 'String',
  password: 'String',
  number: 'Number',
  integer: 'Number',
  boolean: 'Boolean',
  date: 'Date',
  id: 'ObjectID',
  array: 'Array',
  object: 'Mixed',
  mixed: 'Mixed'
}

/** A field's spec as shown: without the default of a password field. */
function shownSpec(spec: FieldSpec): FieldSpec {
  if (spec.type !== 'password') return spec
  const { default: _hidden, ...rest } = spec
  return rest
}

export function describeEntry(model: Model, letters: string, methods: ModelEntry['methods']): ModelEntry {
  return {
    model: model.name,
    file: model.builtIn ? null : `${model.name}.json`,
    perms: model.perms,
    ...(model.description !== undefined && { description: model.description }),
    letters,
    fields: Object.fromEntries(Object.entries(model.fields).map(([name, spec]) => [name, shownSpec(spec)])),
    required: model.required,
    links: model.links.map(link => ({ field: link.field, as: link.as, model: link.target, many: link.many })),
    indexes: model.indexes,
    fulltext: model.fulltext?.fields ?? [],
    methods
  }
}

function indexOptions(model: Model, path: string): Record<string, unknown> {
  const single = model.indexes.find(index => index.fields.length === 1 && index.fields[0] === path)
  const text = model.fulltext?.fields.includes(path)
  return { ...(single && { index: true }), ...(single?.unique && { unique: true }), ...(text && { text: true }) }
}

function describePath(model: Model, path: string, spec: FieldSpec, required: boolean): PathDescription {
  const link = model.links.find(l => l.field === path)
  const shown = shownSpec(spec)
  return {
    path,
    instance: INSTANCES[spec.type],
    isRequired: required,
    options: {
      type: spec.type,
      ...indexOptions(model, path),
      ...(link && { link: link.target, map_to: link.as }),
      ...(spec.description && { description: spec.description })
    },
    ...(spec.type === 'array' && { caster: { instance: spec.items ? INSTANCES[spec.items.type] : 'Mixed' } }),
    ...(spec.enum && { enumValues: spec.enum }),
    ...(shown.default !== undefined && { defaultValue: shown.default })
  }
}

/**
 * Paths of a field: objects with declared properties become their dotted leaf paths, as Mongoose lists nested paths.
 */
function fieldPaths(model: Model, path: string, spec: FieldSpec, required: boolean): PathDescription[] {
  if (spec.type !== 'object' || !spec.properties) return [describePath(model, path, spec, required)]
  return Object.entries(spec.properties).flatMap(([name, inner]) =>
    fieldPaths(model, `${path}.${name}`, inner, required && (spec.required ?? []).includes(name))
  )
}

const SYSTEM_PATHS: Array<[string, FieldSpec]> = [
  ['_id', { type: 'id' }],
  ['_deleted', { type: 'boolean', default: false }],
  ['_owner_id', { type: 'id' }],
  ['createdAt', { type: 'date' }],
  ['updatedAt', { type: 'date' }],
  ['__v', { type: 'integer' }],
  ['_updated_by_id', { type: 'id' }]
]

/** The model as JXP's GET /model/{name} gives it: Mongoose-style paths, system fields included. */
export function describePaths(model: Model): Record<string, PathDescription> {
  const fields = Object.entries(model.fields).flatMap(([name, spec]) =>
    fieldPaths(model, name, spec, model.required.includes(name))
  )
  const system = SYSTEM_PATHS.map(([name, spec]) => describePath(model, name, spec, name === '_id'))
  return Object.fromEntries([...fields, ...system].map(p => [p.path, p]))
}
