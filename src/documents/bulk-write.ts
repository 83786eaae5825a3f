// POST /bulkwrite/{model}: MongoDB-style bulk operations, checked and prepared
// here (permissions per operation, validation, passwords, system fields), then
// run by the engine in one transaction.
import type { BulkOperation, BulkResult, Doc, UpdateTerms } from '../engines/engine.ts'
import type { Model } from '../models/model-definition.ts'
import type { Filter } from '../query/types.ts'
import { SYSTEM_FIELDS } from '../models/model-definition.ts'
import { fieldSpecAt } from '../models/field-kinds.ts'
import { toIsoDate } from '../models/normalize-dates.ts'
import { ownerFilter, requireAccess } from '../auth/permissions.ts'
import { checkUpdate } from '../sql/compile-update.ts'
import { reviveExtendedJson } from '../query/extended-json.ts'
import { checkStoredDocument, hashPassword, newSystemFields, prepareCreate, prepareReplacement } from './prepare-document.ts'
import { QuireError } from '../errors.ts'
import { refuseBulkUserWrites } from '../auth/user-rules.ts'
import type { DocumentContext } from './document-context.ts'

export const MAX_BULK_OPERATIONS = 1000

type Body = Record<string, unknown>

function objectArg (value: unknown, what: string): Body {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new QuireError('INVALID_BODY', `${what} must be an object`)
  return value as Body
}

/** Top-level equality conditions of a filter: the fields an upserted document starts with. */
function seedFields (filter: Filter): Doc {
  return Object.fromEntries(Object.entries(filter).filter(([k, v]) =>
    !k.startsWith('$') && !k.includes('.') && !(SYSTEM_FIELDS as readonly string[]).includes(k) && (v === null || typeof v !== 'object')))
}

async function prepareUpdateTerms (ctx: DocumentContext, model: Model, update: unknown): Promise<UpdateTerms> {
  const forbidden = (path: string): boolean => (SYSTEM_FIELDS as readonly string[]).includes(path.split('.')[0])
  const terms = checkUpdate(update, forbidden)
  for (const term of terms) {
    const spec = fieldSpecAt(model, term[1])
    if (model.passwordFields.includes(term[1])) {
      if (term[0] !== '$set') throw new QuireError('INVALID_QUERY', `Only $set can change the password field ${term[1]}`)
      term[2] = await hashPassword(term[2], ctx.config.bcryptRounds)
    } else if (spec?.type === 'date' && term[0] === '$set') term[2] = toIsoDate(term[2]) ?? term[2]
  }
  return terms
}

function filterFor (ctx: DocumentContext, model: Model, args: Body, letter: 'u' | 'd'): Filter {
  const access = requireAccess(model, ctx.caller, letter)
  const filter = objectArg(args.filter ?? {}, 'filter')
  return { $and: [filter, { _deleted: false }, ownerFilter(access, ctx.caller)] }
}

async function prepareOperation (ctx: DocumentContext, model: Model, entry: unknown, now: string): Promise<BulkOperation> {
  const [name, ...extra] = Object.keys(objectArg(entry, 'Each operation'))
  if (extra.length) throw new QuireError('INVALID_BODY', 'Each operation has exactly one key, e.g. {"insertOne": {...}}')
  const args = objectArg((entry as Body)[name], name)
  const input = { model, caller: ctx.caller, form: false, bcryptRounds: ctx.config.bcryptRounds }
  const upsert = args.upsert === true
  if (upsert) requireAccess(model, ctx.caller, 'c')
  switch (name) {
    case 'insertOne':
      requireAccess(model, ctx.caller, 'c')
      return { kind: 'insert', doc: await prepareCreate({ ...input, body: args.document }) }
    case 'updateOne': case 'updateMany': {
      const filter = filterFor(ctx, model, args, 'u')
      const seed = upsert ? { ...seedFields(objectArg(args.filter ?? {}, 'filter')), ...newSystemFields(ctx.caller) } : undefined
      const update = await prepareUpdateTerms(ctx, model, args.update)
      return { kind: 'update', filter, update, many: name === 'updateMany', now, upsert: seed, check: (doc) => checkStoredDocument(model, doc) }
    }
    case 'replaceOne': {
      const filter = filterFor(ctx, model, args, 'u')
      const replacement = await prepareReplacement({ ...input, body: args.replacement })
      return { kind: 'replace', filter, replacement, now, upsert: upsert ? newSystemFields(ctx.caller) : undefined }
    }
    case 'deleteOne': case 'deleteMany':
      return { kind: 'delete', filter: filterFor(ctx, model, args, 'd'), many: name === 'deleteMany', now }
    default:
      throw new QuireError('UNSUPPORTED_OPERATOR', `Unsupported bulk operation: ${String(name).slice(0, 40)}`)
  }
}

/** Checks and runs a bulk request; nothing is written unless every operation is valid and succeeds. */
export async function bulkWrite (ctx: DocumentContext, model: Model, body: unknown): Promise<BulkResult> {
  refuseBulkUserWrites(model)
  const list = reviveExtendedJson(body)
  if (!Array.isArray(list) || list.length === 0) throw new QuireError('INVALID_BODY', 'The body must be a non-empty array of operations')
  if (list.length > MAX_BULK_OPERATIONS) throw new QuireError('QUERY_TOO_COMPLEX', `At most ${MAX_BULK_OPERATIONS} operations per request`)
  const now = new Date().toISOString()
  const operations: BulkOperation[] = []
  for (const [i, entry] of list.entries()) {
    try {
      operations.push(await prepareOperation(ctx, model, entry, now))
    } catch (err) {
      if (err instanceof QuireError) throw new QuireError(err.code, `Operation ${i}: ${err.message}`, err.details)
      throw err
    }
  }
  return await ctx.engine.bulkWrite(model, operations)
}
