// JXP_COMPAT: fields a write's body sends that the model does not name are dropped, as Mongoose
// does, where Quire's default refuses them (400). Never silently: the answer names them in
// X-Quire-Dropped-Fields and the log records them. System fields (`_`-prefixed) and what a read
// produced (`id`, dates, populated links, `score`) are left for the usual checks. Bulk writes too:
// the documents inserted or replacing, and the paths an update operator writes (by their first name).
import type { FastifyBaseLogger, FastifyReply } from 'fastify'
import type { Doc } from '../storage/engine.ts'
import type { Model } from '../models/model-definition.ts'

const DROPPED_FIELDS_HEADER = 'x-quire-dropped-fields'

const KEPT = new Set(['id', 'createdAt', 'updatedAt', 'score'])

/** How a key names a field: itself (a document's keys), or its first name (an update's paths). */
type NameOf = (key: string) => string
const asIs: NameOf = key => key
const firstName: NameOf = path => path.split('.')[0]

/** The keys of `body` whose field the model does not name. */
function unknownKeys(model: Model, body: Doc, nameOf: NameOf): string[] {
  const links = new Set(model.links.map(link => link.as))
  return Object.keys(body).filter(key => {
    const name = nameOf(key)
    return !Object.hasOwn(model.fields, name) && !name.startsWith('_') && !KEPT.has(name) && !links.has(name)
  })
}

const isDoc = (value: unknown): value is Doc => !!value && typeof value === 'object' && !Array.isArray(value)

/** `body` without the fields `model` does not name (when it allows none), and their names. */
export function withoutUnknownFields(
  model: Model,
  body: unknown,
  nameOf: NameOf = asIs
): { body: unknown; dropped: string[] } {
  if (model.additionalFields || !isDoc(body)) return { body, dropped: [] }
  const dropped = unknownKeys(model, body, nameOf)
  if (dropped.length === 0) return { body, dropped }
  return { body: Object.fromEntries(Object.entries(body).filter(([key]) => !dropped.includes(key))), dropped }
}

/** An update (operators, or fields to set) without the paths `model` does not name. */
function withoutUnknownPaths(model: Model, update: unknown): { body: unknown; dropped: string[] } {
  if (!isDoc(update) || !Object.keys(update).some(key => key.startsWith('$')))
    return withoutUnknownFields(model, update)
  const dropped: string[] = []
  const body = Object.fromEntries(
    Object.entries(update).map(([operator, paths]) => {
      const result = withoutUnknownFields(model, paths, firstName)
      dropped.push(...result.dropped)
      return [operator, result.body]
    })
  )
  return { body, dropped }
}

/** Where each bulk operation carries fields: the documents it inserts or replaces with, and its update. */
const BULK_BODIES: Record<string, { key: string; without: typeof withoutUnknownFields }> = {
  insertOne: { key: 'document', without: withoutUnknownFields },
  replaceOne: { key: 'replacement', without: withoutUnknownFields },
  updateOne: { key: 'update', without: withoutUnknownPaths },
  updateMany: { key: 'update', without: withoutUnknownPaths }
}

/**
 * A bulk write's operations without the fields `model` does not name (anything else as it came,
 * for the usual checks).
 */
function withoutUnknownBulkFields(model: Model, operations: unknown): { body: unknown; dropped: string[] } {
  if (!Array.isArray(operations)) return { body: operations, dropped: [] }
  const dropped = new Set<string>()
  const body = operations.map(operation => {
    const [name, ...extra] = isDoc(operation) ? Object.keys(operation) : []
    const carrier =
      name !== undefined && extra.length === 0 && Object.hasOwn(BULK_BODIES, name) ? BULK_BODIES[name] : undefined
    const args = carrier && (operation as Doc)[name]
    if (!carrier || !isDoc(args)) return operation
    const result = carrier.without(model, args[carrier.key])
    for (const field of result.dropped) dropped.add(field)
    return result.dropped.length === 0 ? operation : { [name]: { ...args, [carrier.key]: result.body } }
  })
  return { body, dropped: [...dropped] }
}

/** Names `dropped` fields in the answer's header and in the log. */
export function reportDropped(model: Model, dropped: string[], reply: FastifyReply, log: FastifyBaseLogger): void {
  if (dropped.length === 0) return
  const previous = reply.getHeader(DROPPED_FIELDS_HEADER)
  reply.header(
    DROPPED_FIELDS_HEADER,
    [...(previous === undefined ? [] : [String(previous)]), ...dropped.map(field => `${model.name}.${field}`)].join(',')
  )
  log.info({ model: model.name, dropped }, 'JXP_COMPAT: fields the model does not name were dropped')
}

/** `body` without the fields `model` does not name, reported on `reply` and in the log. */
export function dropUnknownFields(model: Model, body: unknown, reply: FastifyReply, log: FastifyBaseLogger): unknown {
  const result = withoutUnknownFields(model, body)
  reportDropped(model, result.dropped, reply, log)
  return result.body
}

/** A bulk write's operations without the fields `model` does not name, reported on `reply` and in the log. */
export function dropUnknownBulkFields(
  model: Model,
  operations: unknown,
  reply: FastifyReply,
  log: FastifyBaseLogger
): unknown {
  const result = withoutUnknownBulkFields(model, operations)
  reportDropped(model, result.dropped, reply, log)
  return result.body
}
