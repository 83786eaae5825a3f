// Runs a model's code (src/models/model-code.ts) around document writes. Before hooks
// may change the document (validated again afterwards) or refuse with a 4xx; after
// hooks run once the write is stored, and an error they throw is logged: the write
// is done and the reply says so. Errors model code throws with a 4xx status (as
// JXP's restify errors carry) become that response; any other error is a 500.
import type { Doc } from '../storage/engine.ts'
import type { Model } from '../models/model-definition.ts'
import type { ModelCodeContext, ModelHooks } from '../models/model-code.ts'
import { SYSTEM_FIELDS } from '../models/model-definition.ts'
import { normalizeDates } from '../models/normalize-dates.ts'
import { QuireError, RefusalError } from '../errors.ts'
import { checkFieldValues, checkStoredDocument } from './prepare-document.ts'
import type { DocumentContext } from './document-context.ts'

/** Fields of a new document that are the service's, kept out of a hook's reach. */
const CREATE_SYSTEM_KEYS: ReadonlySet<string> = new Set(SYSTEM_FIELDS)
/** Fields of an update that are the service's (restore, owner, timestamps), kept out of a hook's reach. */
const UPDATE_SYSTEM_KEYS: ReadonlySet<string> = new Set([...SYSTEM_FIELDS, 'updatedAt'])

/**
 * What model code gets besides its document; the caller's copy and the scoped documents are made
 * when first used. A class rather than an object literal with getters: V8 gives every evaluation of
 * such a literal new accessor pairs in the old generation, which keep the request alive through
 * young collections (plugins/request-scope.ts says what that cost).
 */
class CodeContext implements ModelCodeContext {
  readonly model: string
  readonly #ctx: DocumentContext
  #caller: ModelCodeContext['caller'] | undefined
  #documents: ModelCodeContext['documents'] | undefined

  constructor(ctx: DocumentContext, model: Model) {
    this.#ctx = ctx
    this.model = model.name
  }

  get caller(): ModelCodeContext['caller'] {
    const caller = this.#ctx.caller
    return (this.#caller ??= Object.freeze({ ...caller, groups: [...caller.groups] }))
  }

  get documents(): ModelCodeContext['documents'] {
    return (this.#documents ??= this.#ctx.documents)
  }

  /** An own property, so that model code may take it apart from its context. */
  readonly refuse = (status: number, message: string): never => {
    throw new RefusalError(status, message)
  }
}

/** What model code gets besides its document, with `extra`. */
export function codeContext<T extends object = object>(
  ctx: DocumentContext,
  model: Model,
  extra?: T
): ModelCodeContext & T {
  return Object.assign(new CodeContext(ctx, model), extra)
}

/** Runs model code; a thrown error with a 4xx `statusCode` (or `status`) becomes that refusal. */
export async function runModelCode<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (err) {
    if (err instanceof QuireError) throw err
    const status =
      (err as { statusCode?: unknown; status?: unknown })?.statusCode ?? (err as { status?: unknown })?.status
    if (typeof status === 'number' && status >= 400 && status <= 499)
      throw new RefusalError(status, String((err as Error).message || 'Refused'))
    throw err
  }
}

function split(doc: Doc, systemKeys: ReadonlySet<string>): { fields: Doc; system: Doc } {
  const fields: Doc = {}
  const system: Doc = {}
  for (const key in doc) (systemKeys.has(key) ? system : fields)[key] = doc[key]
  return { fields, system }
}

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null

/**
 * Tells later whether `fields` changed from now: the same keys, each primitive the same, each
 * object (which a hook may change in place, at any depth) the same JSON. Cheaper than the JSON
 * of the whole document twice: most values are primitives, compared as they are.
 */
function changeCheck(fields: Doc): () => boolean {
  const keys = Object.keys(fields)
  const values = keys.map(key => fields[key])
  const jsons = values.map(value => (isObject(value) ? JSON.stringify(value) : undefined))
  return () =>
    Object.keys(fields).length !== keys.length ||
    keys.some((key, i) => {
      if (!Object.hasOwn(fields, key)) return true
      const value = fields[key]
      return jsons[i] === undefined ? value !== values[i] : !isObject(value) || JSON.stringify(value) !== jsons[i]
    })
}

/** The new document after `beforeCreate` (system fields as the service set them), validated again. */
export async function beforeCreate(ctx: DocumentContext, model: Model, doc: Doc): Promise<Doc> {
  const hook = ctx.code.hooksOf(model.name).beforeCreate
  if (!hook) return doc
  const { fields, system } = split(doc, CREATE_SYSTEM_KEYS)
  // Most hooks only look: a document the hook left as it was is stored as it was.
  const changed = changeCheck(fields)
  const returned = await runModelCode(() => hook(fields, codeContext(ctx, model)))
  if (returned === undefined && !changed()) return doc
  const next = { ...normalizeDates(model.fields, returned ?? fields), ...system }
  checkStoredDocument(model, next)
  return next
}

/** The changes of a PUT after `beforeUpdate`, validated again. */
export async function beforeUpdate(ctx: DocumentContext, model: Model, id: string, set: Doc): Promise<Doc> {
  const hook = ctx.code.hooksOf(model.name).beforeUpdate
  if (!hook) return set
  const { fields, system } = split(set, UPDATE_SYSTEM_KEYS)
  const changed = normalizeDates(
    model.fields,
    (await runModelCode(() => hook(fields, codeContext(ctx, model, { id })))) ?? fields
  )
  checkFieldValues(model, changed)
  return { ...changed, ...system }
}

export async function beforeDelete(ctx: DocumentContext, model: Model, id: string, permanent: boolean): Promise<void> {
  const hook = ctx.code.hooksOf(model.name).beforeDelete
  if (hook) await runModelCode(() => hook(id, codeContext(ctx, model, { permanent })))
}

/** Runs an after hook on the stored document (JSON text); what it throws is logged, not answered. */
export async function afterWrite(
  ctx: DocumentContext,
  model: Model,
  name: 'afterCreate' | 'afterUpdate' | 'afterDelete',
  stored: string,
  permanent = false
): Promise<void> {
  const hook: ModelHooks[typeof name] = ctx.code.hooksOf(model.name)[name]
  if (!hook) return
  try {
    await hook(JSON.parse(stored) as Doc, codeContext(ctx, model, { permanent }))
  } catch (err) {
    ctx.log.error({ err }, `${model.name}: the ${name} hook failed (the write itself was stored)`)
  }
}
