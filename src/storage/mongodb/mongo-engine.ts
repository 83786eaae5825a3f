// The Engine for MongoDB through the official driver (no ODM). The neutral query
// language is MongoDB's own, so filters, sorts and projections pass straight through, widened
// to match ids and dates in either stored form (mongo-stored-forms.ts); documents are stored as
// JSON values (string _id, ISO date strings) like the SQL engines.
import { MongoClient, MongoServerError, type ClientSession, type Document } from 'mongodb'
import type { Engine, FindQuery, FindResult } from '../engine.ts'
import { findOneThrough } from '../engine.ts'
import type { Model } from '../../models/model-definition.ts'
import { collectionName, syncCollection } from './mongo-indexes.ts'
import { findPipeline, matchOf, withId } from './mongo-pipeline.ts'
import { linkFieldsOf, populateLinks } from './mongo-populate.ts'
import { mongoCapabilities } from './mongo-capabilities.ts'
import { hiddenFields } from '../../permissions/field-policy.ts'
import { atomically, runBulkWrite, toStored, type StoredDoc } from './mongo-bulk-write.ts'
import { preparePipeline, stagesOf } from './mongo-aggregate.ts'
import { resultArray } from '../aggregate-result.ts'
import { runDelete } from './mongo-delete.ts'
import { QuireError } from '../../errors.ts'
import { mongoMatchDocuments } from './mongo-match-documents.ts'
import { createMongoChangeLog } from './mongo-change-log.ts'
import { bothForms, oneIdForm, pinnedHexId } from './mongo-stored-forms.ts'

const DUPLICATE_KEY = 11000
const MAX_TIME_EXPIRED = 50
const INVALID_REGEX = [51091, 51108]
/** A server without a feature Quire asked for (FerretDB v1 answers so for stages and options it lacks). */
const NOT_IMPLEMENTED = 238

/**
 * FerretDB v1.24 (SQLite backend) answers a findAndModify that breaks a unique index with code 1
 * (InternalError) and SQLite's message, where its insert and update give 11000 DuplicateKey.
 */
function ferretUniqueViolation(err: MongoServerError): boolean {
  return err.code === 1 && /UNIQUE constraint failed|duplicate key value violates unique constraint/.test(err.message)
}

/** Turns the database errors a client can cause into catalogue errors. */
function translateMongoError(err: unknown): never {
  if (err instanceof MongoServerError) {
    if (err.code === DUPLICATE_KEY || ferretUniqueViolation(err)) throw new QuireError('DUPLICATE_KEY')
    if (err.code === MAX_TIME_EXPIRED) throw new QuireError('QUERY_TIMEOUT')
    if (INVALID_REGEX.includes(err.code as number)) throw new QuireError('INVALID_REGEX', 'Invalid regular expression')
    if (err.code === NOT_IMPLEMENTED)
      throw new QuireError('NOT_SUPPORTED_BY_STORAGE', `The database server does not support this: ${err.message}`)
  }
  throw err
}

async function run<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (err) {
    return translateMongoError(err)
  }
}

/** Connects to the database named in `url` ("test" when it names none). */
export async function openMongoEngine(
  url: string,
  options: { statementTimeoutMs: number; log?: (msg: string) => void }
): Promise<Engine> {
  const client = await MongoClient.connect(url, { appName: 'quire' })
  const db = client.db()
  const maxTimeMS = options.statementTimeoutMs
  const log = options.log ?? (() => {})
  const collectionOf = (model: Model) => db.collection<StoredDoc>(collectionName(model))
  const caps = await mongoCapabilities(db)
  const changes = await createMongoChangeLog(db, caps, log)
  const noTextWarned = new Set<string>()

  /** Every document of a model, in keyset pages by _id; inside `session` when given (a snapshot). */
  function exportFrom(session?: ClientSession): Engine['exportAll'] {
    return async function* (model, batchSize) {
      const limit = Math.max(1, Math.floor(batchSize))
      // Keyset pages in _id order. A comparison stays within one BSON type, and string ids sort
      // before ObjectIds: after the last string id come the greater strings, then every ObjectId.
      let after: Document = {}
      for (;;) {
        const docs = await run(() =>
          collectionOf(model)
            .find(after, { sort: { _id: 1 }, limit, maxTimeMS, session })
            .toArray()
        )
        if (docs.length === 0) return
        const last: unknown = docs[docs.length - 1]._id
        after =
          typeof last === 'string'
            ? { $or: [{ _id: { $gt: last } }, { _id: { $type: 'objectId' } }] }
            : { _id: { $gt: last } }
        yield docs.map(doc => JSON.stringify(doc))
      }
    }
  }

  /** Refuses a search where the server has no text indexes (FerretDB), before it answers with a server error. */
  function checkSearch(query: FindQuery): void {
    if (query.search !== undefined && !caps.text) {
      throw new QuireError(
        'NOT_SUPPORTED_BY_STORAGE',
        `Full-text search (search=) needs text indexes, which ${caps.server} does not have`
      )
    }
  }

  /** The page's documents as answered: links populated, `id` beside `_id`. */
  async function shape(docs: Document[], query: FindQuery): Promise<Document[]> {
    if (query.populate.length) await populateLinks(docs, query.populate, query.fields, db, maxTimeMS)
    return docs.map(withId)
  }

  /** The query with its filters matching both stored forms (Quire's strings, Mongoose's ObjectIds and Dates). */
  function widened<Q extends FindQuery>(model: Model, query: Q): Q {
    return {
      ...query,
      filter: bothForms(model, query.filter),
      populate: query.populate.map(spec => ({ ...spec, filter: bothForms(spec.target, spec.filter) }))
    }
  }

  async function find(model: Model, asked: FindQuery): Promise<FindResult> {
    checkSearch(asked)
    if (caps.ferretdb && pinnedHexId(asked.filter) !== undefined) return await findById(model, asked)
    return await findWidened(model, widened(model, asked))
  }

  /**
   * A read pinned to one id on FerretDB: the id as text (Quire's form, found on the `_id` index),
   * then as an ObjectId (a JXP app's form) when the text found nothing. FerretDB reads the whole
   * collection for the `$in` of both forms that MongoDB answers from its index (oneIdForm).
   */
  async function findById(model: Model, asked: FindQuery): Promise<FindResult> {
    const as = (form: 'text' | 'objectId'): FindQuery => ({
      ...widened(model, asked),
      filter: oneIdForm(model, asked.filter, form) as FindQuery['filter']
    })
    const text = await findWidened(model, as('text'))
    return text.returned > 0 || text.count ? text : await findWidened(model, as('objectId'))
  }

  /**
   * `attempt` with the filter widened to both stored forms, or on FerretDB one id form after the other (as findById).
   */
  async function eitherIdForm<T>(
    model: Model,
    filter: Document,
    attempt: (filter: Document) => Promise<T | null>
  ): Promise<T | null> {
    if (!caps.ferretdb || pinnedHexId(filter) === undefined) return await attempt(bothForms(model, filter))
    return (await attempt(oneIdForm(model, filter, 'text'))) ?? (await attempt(oneIdForm(model, filter, 'objectId')))
  }

  async function findWidened(model: Model, query: FindQuery): Promise<FindResult> {
    const collection = collectionOf(model)
    const pipeline = findPipeline(model, query, linkFieldsOf(query.populate))
    const [docs, count] = await run(() =>
      Promise.all([
        collection
          .aggregate(pipeline, { maxTimeMS })
          .toArray()
          .then(page => shape(page, query)),
        query.count ? collection.countDocuments(matchOf(query), { maxTimeMS }) : undefined
      ])
    )
    return { data: JSON.stringify(docs), returned: docs.length, ...(count !== undefined && { count }) }
  }

  const countMatches: Engine['count'] = (model, filter) =>
    run(() => collectionOf(model).countDocuments(bothForms(model, filter), { maxTimeMS }))

  return {
    kind: 'mongodb',

    syncModels: async models => {
      for (const model of models) {
        await syncCollection(db, model, log, maxTimeMS, caps)
        if (model.fulltext && !caps.text && !noTextWarned.has(model.name)) {
          noTextWarned.add(model.name)
          log(`${caps.server} has no text indexes: search on ${model.name} answers 501 (docs/mongodb.md)`)
        }
      }
    },

    insert: async (model, doc) => {
      const stored = toStored(doc)
      await run(() => collectionOf(model).insertOne(stored, { maxTimeMS }))
      for (const field of hiddenFields(model)) delete stored[field]
      return JSON.stringify(stored)
    },

    findOne: findOneThrough(find),

    findRaw: (model, filter) =>
      run(() => eitherIdForm(model, filter, f => collectionOf(model).findOne(f, { maxTimeMS }))),

    find,

    count: countMatches,

    // MongoDB estimates no filter's matches: the exact count.
    planCount: countMatches,

    estimateCount: model => run(() => collectionOf(model).estimatedDocumentCount({ maxTimeMS })),

    updateOne: async (model, filter, set) => {
      // Password fields are dropped here, not by a projection: FerretDB v1's findAndModify has none.
      const updated = await run(() =>
        eitherIdForm(model, filter, f =>
          collectionOf(model).findOneAndUpdate(
            f,
            { $set: toStored(set), $inc: { __v: 1 } },
            { returnDocument: 'after', maxTimeMS }
          )
        )
      )
      if (!updated) return null
      for (const field of hiddenFields(model)) delete updated[field]
      return JSON.stringify(withId(updated))
    },

    aggregate: async (model, plan) =>
      await run(async () => {
        const pipeline = preparePipeline(model, plan)
        const missing = caps.stages && stagesOf(pipeline).find(stage => !caps.stages!.has(stage))
        if (missing)
          throw new QuireError('NOT_SUPPORTED_BY_STORAGE', `${caps.server} has no ${missing} aggregation stage`)
        const cursor = collectionOf(model).aggregate(pipeline, { maxTimeMS })
        try {
          return await resultArray(
            (async function* () {
              for await (const doc of cursor) yield JSON.stringify(doc)
            })()
          )
        } finally {
          await cursor.close()
        }
      }),

    bulkWrite: (model, operations) =>
      run(() =>
        runBulkWrite(
          client,
          caps.transactions,
          log,
          { model, collection: collectionOf(model), maxTimeMS },
          operations.map(op =>
            op.kind === 'insert' ? op : { ...op, filter: bothForms(model, op.filter) as typeof op.filter }
          )
        )
      ),

    deleteOne: (model, plan) =>
      run(() =>
        runDelete({ client, collectionOf, maxTimeMS, transactions: caps.transactions, log }, model, {
          ...plan,
          target: bothForms(model, plan.target),
          referrers: plan.referrers.map(r => ({
            ...r,
            linking: bothForms(r.model, r.linking),
            blocked: bothForms(r.model, r.blocked)
          }))
        })
      ),

    streamFind: async (model, asked, batchSize, onBatch) => {
      checkSearch(asked)
      const query = widened(model, asked)
      const size = Math.max(1, Math.min(10_000, Math.floor(batchSize)))
      const cursor = collectionOf(model).aggregate(findPipeline(model, query, linkFieldsOf(query.populate)), {
        maxTimeMS,
        batchSize: size
      })
      let handed = 0
      let batch: Document[] = []
      const hand = async (): Promise<void> => {
        handed += batch.length
        const texts = (await shape(batch, query)).map(doc => JSON.stringify(doc))
        batch = []
        await onBatch(texts)
      }
      try {
        for await (const doc of cursor) {
          batch.push(doc)
          if (batch.length >= size) await hand()
        }
        if (batch.length) await hand()
        return handed
      } catch (err) {
        return translateMongoError(err)
      } finally {
        await cursor.close()
      }
    },

    // estimatedDocumentCount reads the collection's metadata, which is always current.
    refreshStatistics: async () => {},

    insertMany: async (model, docs) => {
      if (docs.length === 0) return 0
      const collection = collectionOf(model)
      const stored = docs.map(toStored)
      await run(() =>
        atomically(client, caps.transactions, log, async ({ session, undo }) => {
          // Without a transaction, a failed batch removes what it inserted: the ids that were not there before.
          const there = undo
            ? new Set(
                (
                  await collection
                    .find({ _id: { $in: stored.map(doc => doc._id) } }, { projection: { _id: 1 }, maxTimeMS })
                    .toArray()
                ).map(doc => doc._id)
              )
            : undefined
          undo?.remove(
            collection,
            stored.map(doc => doc._id).filter(id => !there!.has(id))
          )
          await collection.insertMany(stored, { ...(session && { session }), maxTimeMS })
        })
      )
      return docs.length
    },

    exportAll: exportFrom(),

    readSnapshot: async work => {
      if (!caps.transactions) return await work({ consistent: false, exportAll: exportFrom() })
      const session = client.startSession({ snapshot: true })
      try {
        return await work({ consistent: true, exportAll: exportFrom(session) })
      } finally {
        await session.endSession()
      }
    },

    matchDocuments: mongoMatchDocuments(db, maxTimeMS, caps),

    changes,

    close: () => client.close()
  }
}
