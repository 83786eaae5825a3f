// POST /bulkwrite/{model}: MongoDB-style bulk operations, run by the engine in one
// transaction. Every operation is checked first (permissions and filters through
// src/permissions, documents and updates validated); only when all are valid are
// the passwords they set hashed (at most LIMITS.passwordsPerRequest), so a request
// that fails costs no bcrypt work and writes nothing.
import type { BulkOperation, BulkResult, Doc, UpdateTerms } from '../storage/engine.ts'
import type { Model } from '../models/model-definition.ts'
import type { Filter } from '../query/types.ts'
import { SYSTEM_FIELDS } from '../models/model-definition.ts'
import { fieldSpecAt } from '../models/field-kinds.ts'
import { toIsoDate } from '../models/normalize-dates.ts'
import { requireAccess } from '../permissions/access.ts'
import { authorizeBulkFilter } from '../permissions/authorize/authorize-write.ts'
import { hiddenFields } from '../permissions/field-policy.ts'
import { checkUpdate } from '../validation/check-update.ts'
import { LIMITS } from '../validation/limits.ts'
import { isPlainObject } from '../validation/values.ts'
import { reviveExtendedJson } from '../query/extended-json.ts'
import { checkLinks } from './check-links.ts'
import {
  checkFieldValues,
  checkStoredDocument,
  hashPassword,
  hashPasswordFields,
  newSystemFields,
  shapeCreate,
  shapeReplacement
} from './prepare-document.ts'
import { QuireError } from '../errors.ts'
import { refuseBulkUserWrites } from '../auth/users/user-rules.ts'
import { checkPasswordLength } from '../auth/password-hash.ts'
import { bulkUpdateBody, createBody } from './read-back.ts'
import type { DocumentContext } from './document-context.ts'

type Body = Record<string, unknown>

export interface JxpBulkResult {
  ok: 1
  writeErrors: never[]
  writeConcernErrors: never[]
  insertedIds: Array<{ index: number; _id: string }>
  nInserted: number
  nUpserted: number
  nMatched: number
  nModified: number
  nRemoved: number
  upserted: Array<{ index: number; _id: string }>
}

/** A checked operation and the documents (or $set terms) holding passwords still to hash. */
interface Planned {
  op: BulkOperation
  docs: Doc[]
  passwordTerms: UpdateTerms
}

function objectArg(value: unknown, what: string): Body {
  if (!isPlainObject(value)) throw new QuireError('INVALID_BODY', `${what} must be an object`)
  return value
}

const isSystemPath = (path: string): boolean => (SYSTEM_FIELDS as readonly string[]).includes(path.split('.')[0])

/** Top-level equality conditions of a checked filter: the fields an upserted document starts with. */
function seedFields(filter: Filter): Doc {
  return Object.fromEntries(
    Object.entries(filter).filter(
      ([k, v]) => !k.startsWith('$') && !k.includes('.') && !isSystemPath(k) && (v === null || typeof v !== 'object')
    )
  )
}

/** The update's terms: password fields only by $set (validated now, hashed later), dates normalized. */
function checkUpdateTerms(model: Model, update: unknown): { terms: UpdateTerms; passwordTerms: UpdateTerms } {
  const terms = checkUpdate(update, isSystemPath)
  const passwordTerms: UpdateTerms = []
  for (const term of terms) {
    const [op, path, value] = term
    if (hiddenFields(model).includes(path.split('.')[0])) {
      if (op !== '$set' || path.includes('.'))
        throw new QuireError('INVALID_QUERY', `Only $set can change the password field ${path.slice(0, 64)}`)
      checkFieldValues(model, { [path]: value })
      checkPasswordLength(value as string, path)
      passwordTerms.push(term)
    } else if (fieldSpecAt(model, path)?.type === 'date' && op === '$set') term[2] = toIsoDate(value) ?? value
  }
  return { terms, passwordTerms }
}

function planUpdate(ctx: DocumentContext, model: Model, args: Body, many: boolean, now: string): Planned {
  const filter = authorizeBulkFilter(model, ctx.caller, args.filter ?? {}, 'u')
  const upsert = args.upsert === true ? { ...seedFields(filter), ...newSystemFields(ctx.caller) } : undefined
  const { terms, passwordTerms } = checkUpdateTerms(model, bulkUpdateBody(model, args.update))
  const op: BulkOperation = {
    kind: 'update',
    filter,
    update: terms,
    many,
    now,
    upsert,
    check: doc => checkStoredDocument(model, doc)
  }
  return { op, docs: [], passwordTerms }
}

function planOperation(ctx: DocumentContext, model: Model, entry: unknown, now: string): Planned {
  const [name, ...extra] = Object.keys(objectArg(entry, 'Each operation'))
  if (extra.length)
    throw new QuireError('INVALID_BODY', 'Each operation has exactly one key, e.g. {"insertOne": {...}}')
  const args = objectArg((entry as Body)[name], name)
  const input = { model, caller: ctx.caller, form: false }
  if (args.upsert === true || name === 'insertOne') requireAccess(model, ctx.caller, 'c')
  switch (name) {
    case 'insertOne': {
      const doc = shapeCreate({ ...input, body: createBody(model, ctx.caller, args.document) })
      return { op: { kind: 'insert', doc }, docs: [doc], passwordTerms: [] }
    }
    case 'updateOne':
    case 'updateMany':
      return planUpdate(ctx, model, args, name === 'updateMany', now)
    case 'replaceOne': {
      const filter = authorizeBulkFilter(model, ctx.caller, args.filter ?? {}, 'u')
      const replacement = shapeReplacement({ ...input, body: args.replacement })
      const upsert = args.upsert === true ? newSystemFields(ctx.caller) : undefined
      return { op: { kind: 'replace', filter, replacement, now, upsert }, docs: [replacement], passwordTerms: [] }
    }
    case 'deleteOne':
    case 'deleteMany':
      return {
        op: {
          kind: 'delete',
          filter: authorizeBulkFilter(model, ctx.caller, args.filter ?? {}, 'd'),
          many: name === 'deleteMany',
          now
        },
        docs: [],
        passwordTerms: []
      }
    default:
      throw new QuireError('UNSUPPORTED_OPERATOR', `Unsupported bulk operation: ${String(name).slice(0, 40)}`)
  }
}

/** Hashes every password the planned operations set, once all of them are valid. */
async function hashPlannedPasswords(ctx: DocumentContext, model: Model, planned: Planned[]): Promise<void> {
  const terms = planned.flatMap(p => p.passwordTerms)
  const docs = planned.flatMap(p => p.docs)
  const inDocs = docs.reduce((n, doc) => n + hiddenFields(model).filter(f => typeof doc[f] === 'string').length, 0)
  if (terms.length + inDocs > LIMITS.passwordsPerRequest) {
    throw new QuireError(
      'QUERY_TOO_COMPLEX',
      `At most ${LIMITS.passwordsPerRequest} passwords may be set in one request`
    )
  }
  await hashPasswordFields(model, docs, ctx.config.bcryptRounds)
  await Promise.all(
    terms.map(async term => {
      term[2] = await hashPassword(term[2] as string, ctx.config.bcryptRounds)
    })
  )
}

/** Every value the planned operations write into a top-level field, as one document of arrays (for the link check). */
function writtenValues(planned: Planned[]): Doc {
  // A Map, not an object: a field may be named like an Object.prototype member (hasOwnProperty, constructor).
  const values = new Map<string, unknown[]>()
  const add = (field: string, value: unknown): void => {
    const each = isPlainObject(value) && Array.isArray(value.$each) ? value.$each : [value]
    let written = values.get(field)
    if (written === undefined) values.set(field, (written = []))
    written.push(...each.flat())
  }
  for (const { op, docs } of planned) {
    for (const doc of [...docs, ...(op.kind === 'update' && op.upsert ? [op.upsert] : [])])
      for (const [field, value] of Object.entries(doc)) add(field, value)
    if (op.kind === 'update') for (const [, path, value] of op.update) add(path.split('.')[0], value)
  }
  return Object.fromEntries(values)
}

/** Checks and runs a bulk request; nothing is written unless every operation is valid and succeeds. */
export async function bulkWrite(
  ctx: DocumentContext,
  model: Model,
  body: unknown
): Promise<BulkResult & { data: JxpBulkResult }> {
  refuseBulkUserWrites(model)
  const list = reviveExtendedJson(body)
  if (!Array.isArray(list) || list.length === 0)
    throw new QuireError('INVALID_BODY', 'The body must be a non-empty array of operations')
  if (list.length > LIMITS.bulkOperations)
    throw new QuireError('QUERY_TOO_COMPLEX', `At most ${LIMITS.bulkOperations} operations per request`)
  const now = new Date().toISOString()
  const planned = list.map((entry, i) => {
    try {
      return planOperation(ctx, model, entry, now)
    } catch (err) {
      if (err instanceof QuireError) throw new QuireError(err.code, `Operation ${i}: ${err.message}`, err.details)
      throw err
    }
  })
  await checkLinks(ctx, model, writtenValues(planned))
  await hashPlannedPasswords(ctx, model, planned)
  const result = await ctx.engine.bulkWrite(
    model,
    planned.map(p => p.op)
  )
  return { ...result, data: jxpResult(planned, result) }
}

/**
 * The result as JXP answers it (MongoDB's BulkWriteResult, as its driver 4 serializes it), under
 * `data`: each inserted and upserted id with the index of its operation.
 */
function jxpResult(planned: Planned[], result: BulkResult): JxpBulkResult {
  const idOf = (op: BulkOperation): string | undefined =>
    op.kind === 'insert' ? String(op.doc._id) : op.kind !== 'delete' && op.upsert ? String(op.upsert._id) : undefined
  const ids = planned.map((p, index) => ({ index, _id: idOf(p.op) }))
  return {
    ok: 1,
    writeErrors: [],
    writeConcernErrors: [],
    insertedIds: ids.filter(({ index }) => planned[index].op.kind === 'insert') as Array<{
      index: number
      _id: string
    }>,
    nInserted: result.nInserted,
    nUpserted: result.nUpserted,
    nMatched: result.nMatched,
    nModified: result.nModified,
    nRemoved: result.nDeleted,
    upserted: ids.filter(
      ({ index, _id }) => planned[index].op.kind !== 'insert' && _id !== undefined && result.upsertedIds.includes(_id)
    ) as Array<{ index: number; _id: string }>
  }
}
