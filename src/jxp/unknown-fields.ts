// JXP_COMPAT: fields a write's body sends that the model does not name are dropped, as Mongoose
// does, where Quire's default refuses them (400). Never silently: the answer names them in
// X-Quire-Dropped-Fields and the log records them. System fields (`_`-prefixed) and what a read
// produced (`id`, dates, populated links, `score`) are left for the usual checks.
import type { FastifyBaseLogger, FastifyReply } from 'fastify'
import type { Doc } from '../storage/engine.ts'
import type { Model } from '../models/model-definition.ts'

const DROPPED_FIELDS_HEADER = 'x-quire-dropped-fields'

const KEPT = new Set(['id', 'createdAt', 'updatedAt', 'score'])

function unknownKeys(model: Model, body: Doc): string[] {
  const links = new Set(model.links.map(link => link.as))
  return Object.keys(body).filter(
    key => !Object.hasOwn(model.fields, key) && !key.startsWith('_') && !KEPT.has(key) && !links.has(key)
  )
}

/** `body` without the fields `model` does not name (when it allows none), and their names. */
export function withoutUnknownFields(model: Model, body: unknown): { body: unknown; dropped: string[] } {
  if (model.additionalFields || !body || typeof body !== 'object' || Array.isArray(body)) return { body, dropped: [] }
  const dropped = unknownKeys(model, body as Doc)
  if (dropped.length === 0) return { body, dropped }
  return { body: Object.fromEntries(Object.entries(body).filter(([key]) => !dropped.includes(key))), dropped }
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
