// MongoDB storage of the models: one collection per model (named like the SQL
// table), its indexes and its one text index, each named `qx_` + a hash of its
// definition, so a changed definition gets a new index and the stale one is dropped.
import { createHash } from 'node:crypto'
import { MongoServerError, type Collection, type Db, type IndexDescription, type IndexDirection } from 'mongodb'
import type { Model } from '../../models/model-definition.ts'
import type { MongoCapabilities } from './mongo-capabilities.ts'

const INDEX_PREFIX = 'qx_'
/** Languages MongoDB's text search stems; any other (e.g. PostgreSQL's "simple") indexes without stemming. */
const TEXT_LANGUAGES = new Set([
  'danish',
  'dutch',
  'english',
  'finnish',
  'french',
  'german',
  'hungarian',
  'italian',
  'norwegian',
  'portuguese',
  'romanian',
  'russian',
  'spanish',
  'swedish',
  'turkish'
])
/** Document field that could override the text index's language; MongoDB reads `language` unless told. */
const LANGUAGE_OVERRIDE = '_quire_text_language'
const NAMESPACE_EXISTS = 48
const INDEX_NOT_FOUND = 27

export function collectionName(model: Model): string {
  return `q_${model.name}`
}

function nameIndex(model: Model, definition: object): string {
  const hash = createHash('sha256').update(JSON.stringify(definition)).digest('hex').slice(0, 10)
  return `${INDEX_PREFIX}${model.name.slice(0, 30)}_${hash}`
}

/**
 * The indexes a model wants, each named after its definition; its text index only where the server has text indexes.
 */
function describeIndexes(model: Model, text: boolean): IndexDescription[] {
  const wanted: IndexDescription[] = model.indexes.map(index => {
    // A non-unique index ends with _id, every sort's tiebreaker, as on SQL (schema-ddl.ts).
    const keys = index.unique ? index.fields : [...index.fields, '_id']
    const definition = { key: Object.fromEntries(keys.map(f => [f, 1])), unique: index.unique }
    return { ...definition, name: nameIndex(model, definition) }
  })
  if (model.fulltext && text) {
    const { fields, language } = model.fulltext
    const definition = {
      key: Object.fromEntries(fields.map((f): [string, IndexDirection] => [f, 'text'])),
      default_language: TEXT_LANGUAGES.has(language) ? language : 'none',
      language_override: LANGUAGE_OVERRIDE
    }
    wanted.push({ ...definition, name: nameIndex(model, definition) })
  }
  return wanted
}

async function ignoring<T>(code: number, work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work()
  } catch (err) {
    if (err instanceof MongoServerError && err.code === code) return undefined
    throw err
  }
}

async function syncIndexes(
  collection: Collection,
  model: Model,
  log: (msg: string) => void,
  maxTimeMS: number,
  text: boolean
): Promise<void> {
  const wanted = describeIndexes(model, text)
  const existing = (await collection.listIndexes({ maxTimeMS }).toArray())
    .map(index => index.name as string)
    .filter(name => name.startsWith(INDEX_PREFIX))
  for (const name of existing) {
    if (!wanted.some(w => w.name === name))
      await ignoring(INDEX_NOT_FOUND, () => collection.dropIndex(name, { maxTimeMS }))
  }
  const missing = wanted.filter(w => !existing.includes(w.name!))
  for (const index of missing) log(`building index ${index.name} on ${collection.collectionName}`)
  if (missing.length) await collection.createIndexes(missing, { maxTimeMS })
}

/**
 * Creates or updates one model's collection and indexes; safe to run concurrently from several
 * processes. Where the server has no text indexes (FerretDB v1), a model's full-text index is left
 * out, and its search answers 501 NOT_SUPPORTED_BY_STORAGE.
 */
export async function syncCollection(
  db: Db,
  model: Model,
  log: (msg: string) => void,
  maxTimeMS: number,
  caps: Pick<MongoCapabilities, 'text'>
): Promise<void> {
  const name = collectionName(model)
  await ignoring(NAMESPACE_EXISTS, () => db.createCollection(name))
  await syncIndexes(db.collection(name), model, log, maxTimeMS, caps.text)
}
