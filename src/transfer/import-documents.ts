// `quire import`: stores documents from a file in a model, keeping their ids,
// timestamps and owners (so a MongoDB collection moves in intact), validated
// against the model's schema, in large batches, with progress reported.
import { statSync } from 'node:fs'
import type { Engine, Doc } from '../storage/engine.ts'
import type { Model } from '../models/model-definition.ts'
import { normalizeDates, toIsoDate } from '../models/normalize-dates.ts'
import { checkStoredDocument, hashPassword, newSystemFields } from '../documents/prepare-document.ts'
import { ANONYMOUS } from '../auth/caller.ts'
import { isValidId } from '../ids.ts'
import { QuireError } from '../errors.ts'
import { readDocumentStream } from './read-document-stream.ts'

const BCRYPT_HASH = /^\$2[aby]\$\d{2}\$/
const BATCH_SIZE = 5000

export interface ImportProgress {
  bytes: number
  totalBytes: number
  imported: number
  skipped: number
}

export interface ImportOptions {
  skipInvalid: boolean
  bcryptRounds: number
  onProgress: (progress: ImportProgress) => void
  onSkip: (position: number, reason: string) => void
}

/** System fields taken from the source where valid, generated where missing. */
function systemFields(source: Doc): Doc {
  const fresh = isValidId(source._id) && source.createdAt !== undefined ? undefined : newSystemFields(ANONYMOUS)
  const id = isValidId(source._id) ? source._id : fresh!._id
  const createdAt = toIsoDate(source.createdAt) ?? fresh?.createdAt ?? new Date().toISOString()
  return {
    _id: id,
    id,
    _deleted: typeof source._deleted === 'boolean' ? source._deleted : false,
    _owner_id: isValidId(source._owner_id) ? source._owner_id : null,
    createdAt,
    updatedAt: toIsoDate(source.updatedAt) ?? createdAt,
    __v: Number.isInteger(source.__v) ? source.__v : 0
  }
}

/** One source document as stored: validated fields plus system fields. */
async function prepareImported(model: Model, source: unknown, bcryptRounds: number): Promise<Doc> {
  if (!source || typeof source !== 'object' || Array.isArray(source))
    throw new QuireError('INVALID_BODY', 'not a JSON object')
  const doc = normalizeDates(model.fields, source as Doc)
  checkStoredDocument(model, doc)
  for (const field of model.passwordFields) {
    if (typeof doc[field] === 'string' && !BCRYPT_HASH.test(doc[field] as string))
      doc[field] = await hashPassword(doc[field] as string, bcryptRounds)
  }
  const fields = Object.fromEntries(
    Object.entries(doc).filter(
      ([k]) => !k.startsWith('_') && k !== 'id' && k !== 'createdAt' && k !== 'updatedAt' && k !== '__v'
    )
  )
  return { ...fields, ...systemFields(source as Doc) }
}

function describe(err: unknown): string {
  if (err instanceof QuireError && Array.isArray(err.details)) {
    const details = err.details as Array<{ field: string; message: string }>
    return `${err.message}: ${details.map(d => `${d.field} ${d.message}`).join(', ')}`
  }
  return err instanceof Error ? err.message : String(err)
}

/**
 * Imports the file; stops at the first invalid document unless skipInvalid. One batch is
 * inserted while the next is prepared. Returns the final progress.
 */
export async function importDocuments(
  engine: Engine,
  model: Model,
  path: string,
  options: ImportOptions
): Promise<ImportProgress> {
  const progress: ImportProgress = { bytes: 0, totalBytes: statSync(path).size, imported: 0, skipped: 0 }
  let batch: Doc[] = []
  let inFlight: Promise<void> = Promise.resolve()
  const flush = async (): Promise<void> => {
    const docs = batch
    batch = []
    await inFlight
    inFlight = engine.insertMany(model, docs).then(n => {
      progress.imported += n
      options.onProgress(progress)
    })
    inFlight.catch(() => {})
  }
  for await (const { position, doc } of readDocumentStream(path, bytes => {
    progress.bytes = bytes
  })) {
    try {
      batch.push(await prepareImported(model, doc, options.bcryptRounds))
    } catch (err) {
      if (!options.skipInvalid)
        throw new Error(
          `document ${position}: ${describe(err)} (imported ${progress.imported} before it; ` +
            `--skip-invalid goes on past such documents)`
        )
      progress.skipped++
      options.onSkip(position, describe(err))
    }
    if (batch.length >= BATCH_SIZE) await flush()
  }
  await flush()
  await inFlight
  await engine.refreshStatistics(model)
  return progress
}
