// Turns a client's body into what is stored: read-only system fields dropped,
// dates normalized, schema validated, system fields set (the shape* functions),
// then passwords hashed (the prepare* functions, or hashPasswordFields once a
// whole bulk request is valid: no bcrypt work is spent on a request that fails).
import type { Model } from '../models/model-definition.ts'
import type { Doc } from '../storage/engine.ts'
import type { Caller } from '../auth/caller.ts'
import { compileValidators, describeErrors, type DocumentValidators } from '../models/document-schema.ts'
import { normalizeDates } from '../models/normalize-dates.ts'
import { newId, isValidId } from '../ids.ts'
import { QuireError } from '../errors.ts'
import { applyUserRules, ownUserRecord, refuseLinkUserChange } from '../auth/users/user-rules.ts'
import { hiddenFields } from '../permissions/field-policy.ts'
import { LIMITS } from '../validation/limits.ts'
import { checkPasswordLength, hashPassword } from '../auth/password-hash.ts'
import { READ_ONLY_SYSTEM_FIELDS } from '../models/model-definition.ts'

/** Re-exported for the bulk and import paths; its home (with the 72-byte limit) is src/auth/password-hash.ts. */
export { hashPassword }

/** System fields a client may send back (e.g. a document it read) but never sets. */

const validatorCache = new WeakMap<Model, ReturnType<typeof compileValidators>>()

/**
 * Checks `doc` against the model's schema for a create or an update. A form's strings are first
 * coerced to the schema's types, then checked as JSON is: Ajv's coercion turns "1e400" into
 * Infinity without checking it again (JSON would store it as null).
 */
function validateFields(model: Model, form: boolean, kind: keyof DocumentValidators, doc: Doc): void {
  let compiled = validatorCache.get(model)
  if (!compiled) validatorCache.set(model, (compiled = compileValidators(model)))
  if (form) validate(compiled.form[kind], doc)
  validate(compiled.json[kind], doc)
}

export interface WriteInput {
  model: Model
  body: unknown
  caller: Caller
  /** The body came as an urlencoded form: strings are coerced to the schema's types. */
  form: boolean
  bcryptRounds: number
}

function splitSystemFields(body: unknown): { fields: Doc; owner?: unknown; deleted?: unknown } {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new QuireError('INVALID_BODY', 'The body must be a JSON object')
  const { _owner_id: owner, _deleted: deleted, ...rest } = body as Doc
  for (const key of READ_ONLY_SYSTEM_FIELDS) delete rest[key]
  return { fields: rest, owner, deleted }
}

/**
 * Hashes, in place, the password fields each document sets; at most LIMITS.passwordsPerRequest of them, each at most 72
 * bytes.
 */
export async function hashPasswordFields(model: Model, docs: Doc[], rounds: number): Promise<void> {
  const fields = hiddenFields(model)
  if (fields.length === 0) return
  const targets = docs.flatMap(doc =>
    fields.filter(field => typeof doc[field] === 'string').map(field => ({ doc, field }))
  )
  if (targets.length === 0) return
  if (targets.length > LIMITS.passwordsPerRequest) {
    throw new QuireError(
      'QUERY_TOO_COMPLEX',
      `At most ${LIMITS.passwordsPerRequest} passwords may be set in one request`
    )
  }
  for (const { doc, field } of targets) checkPasswordLength(doc[field] as string, field)
  await Promise.all(
    targets.map(async ({ doc, field }) => {
      doc[field] = await hashPassword(doc[field] as string, rounds, field)
    })
  )
}

/**
 * An empty link (JXP's forms send `link_id=` for "none") as the value that clears it: null, or [] for a list of links.
 */
function clearedLinks(model: Model, fields: Doc): Doc {
  const blank = model.links.filter(link => fields[link.field] === '')
  if (blank.length === 0) return fields
  return { ...fields, ...Object.fromEntries(blank.map(link => [link.field, link.many ? [] : null])) }
}

function validate(validator: DocumentValidators['create'], doc: Doc): void {
  if (!validator(doc))
    throw new QuireError(
      'VALIDATION_FAILED',
      'The document does not match the model schema',
      describeErrors(validator.errors)
    )
}

function checkOwner(owner: unknown, caller: Caller): void {
  if (owner === undefined) return
  if (!caller.admin) throw new QuireError('FORBIDDEN', 'Only an admin can set _owner_id')
  if (owner !== null && !isValidId(owner))
    throw new QuireError('VALIDATION_FAILED', '_owner_id must be a document id', [
      { field: '_owner_id', message: 'must be 24 hex characters' }
    ])
}

/** System fields of a new document created by `caller` (owner: the caller unless given). */
export function newSystemFields(caller: Caller, owner?: unknown): Doc {
  const id = newId()
  const now = new Date().toISOString()
  return {
    _id: id,
    id,
    _deleted: false,
    _owner_id: owner === undefined ? (caller.userId ?? null) : owner,
    createdAt: now,
    updatedAt: now,
    __v: 0,
    _updated_by_id: caller.userId ?? null
  }
}

/** Validates a whole stored document (system fields aside) against the model; throws VALIDATION_FAILED. */
const STORED_SYSTEM_KEYS = new Set([...READ_ONLY_SYSTEM_FIELDS, '_deleted', '_owner_id'])

export function checkStoredDocument(model: Model, doc: Doc): void {
  const fields = Object.fromEntries(Object.entries(doc).filter(([key]) => !STORED_SYSTEM_KEYS.has(key)))
  validateFields(model, false, 'create', fields)
  Object.assign(doc, fields)
}

/** Validates field values a bulk $set gives (the partial schema), before they are applied. */
export function checkFieldValues(model: Model, fields: Doc): void {
  validateFields(model, false, 'update', fields)
}

/** A complete new document for POST, passwords still in plain text. */
export function shapeCreate(input: Omit<WriteInput, 'bcryptRounds'>): Doc {
  const { model, caller } = input
  const { fields, owner, deleted } = splitSystemFields(input.body)
  if (deleted !== undefined)
    throw new QuireError('VALIDATION_FAILED', '_deleted cannot be set on create', [
      { field: '_deleted', message: 'is set by DELETE' }
    ])
  checkOwner(owner, caller)
  const doc = normalizeDates(model.fields, applyUserRules(model, caller, clearedLinks(model, fields)))
  validateFields(model, input.form, 'create', doc)
  return ownUserRecord(model, { ...doc, ...newSystemFields(caller, owner) }, owner !== undefined)
}

/** A complete new document for POST, passwords hashed. */
export async function prepareCreate(input: WriteInput): Promise<Doc> {
  const doc = shapeCreate(input)
  await hashPasswordFields(input.model, [doc], input.bcryptRounds)
  return doc
}

/** The validated, date-normalized fields of a replacement document (bulk replaceOne), passwords in plain text. */
export function shapeReplacement(input: Omit<WriteInput, 'bcryptRounds'>): Doc {
  const { fields, owner, deleted } = splitSystemFields(input.body)
  if (owner !== undefined || deleted !== undefined)
    throw new QuireError('VALIDATION_FAILED', 'A replacement cannot set _owner_id or _deleted')
  const doc = normalizeDates(input.model.fields, fields)
  validateFields(input.model, false, 'create', doc)
  return doc
}

/** A form's `_deleted` ("true"/"false") as the boolean it stands for; anything else is left for the check. */
function deletedFlag(deleted: unknown, form: boolean): unknown {
  return form && (deleted === 'true' || deleted === 'false') ? deleted === 'true' : deleted
}

/**
 * The fields to merge for PUT, passwords in plain text; `_deleted` (restore/delete) and `_owner_id` (admins) included
 * when sent.
 */
export function shapeUpdate(input: Omit<WriteInput, 'bcryptRounds'>): Doc {
  const { model, caller } = input
  const { fields, owner, deleted: sent } = splitSystemFields(input.body)
  const deleted = deletedFlag(sent, input.form)
  checkOwner(owner, caller)
  if (deleted !== undefined && typeof deleted !== 'boolean')
    throw new QuireError('VALIDATION_FAILED', '_deleted must be a boolean', [
      { field: '_deleted', message: 'must be boolean' }
    ])
  if (deleted !== undefined) refuseLinkUserChange(model, caller, deleted ? 'delete a user' : 'restore a user')
  if (owner !== undefined) refuseLinkUserChange(model, caller, 'change the owner of a user')
  const set = normalizeDates(model.fields, applyUserRules(model, caller, clearedLinks(model, fields)))
  validateFields(model, input.form, 'update', set)
  return {
    ...set,
    ...(owner !== undefined && { _owner_id: owner }),
    ...(deleted !== undefined && { _deleted: deleted }),
    updatedAt: new Date().toISOString(),
    _updated_by_id: caller.userId ?? null
  }
}

/** The fields to merge for PUT, passwords hashed. */
export async function prepareUpdate(input: WriteInput): Promise<Doc> {
  const set = shapeUpdate(input)
  await hashPasswordFields(input.model, [set], input.bcryptRounds)
  return set
}
