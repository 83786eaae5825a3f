// Bulk writes and imports for the MongoDB engine, each in one transaction (so MongoDB
// must be a replica set). Updates run natively; the documents they changed are read back,
// checked by the caller's validator, and get their __v and updatedAt bump.
import { isDeepStrictEqual } from 'node:util'
import { MongoServerError, type ClientSession, type Collection, type Document, type MongoClient } from 'mongodb'
import type { BulkOperation, BulkResult, Doc, UpdateTerms } from './engine.ts'
import { LIMITS } from '../validation/limits.ts'
import { SYSTEM_FIELDS, type Model } from '../models/model-definition.ts'
import { QuireError } from '../errors.ts'

type Op<K extends BulkOperation['kind']> = Extract<BulkOperation, { kind: K }>

interface Scope { model: Model, collection: Collection<StoredDoc>, session: ClientSession, maxTimeMS: number }

/** Server errors of an update that cannot apply to a document: BadValue, TypeMismatch, PathNotViable, ConflictingUpdateOperators. */
const INAPPLICABLE_UPDATE = [2, 14, 28, 40]
/** IllegalOperation: the server is a standalone, which has no transactions. */
const NO_TRANSACTIONS = 20

/** A document as stored: its _id is the 24-hex string the service generated. */
export interface StoredDoc extends Document { _id: string }

/** The document as the SQL engines store it: plain JSON (no Date objects, no undefined). */
export function toStored (doc: Doc): StoredDoc {
  return JSON.parse(JSON.stringify(doc)) as StoredDoc
}

/** Runs `work` in one transaction: all of it or none. */
export async function inTransaction<T> (client: MongoClient, work: (session: ClientSession) => Promise<T>): Promise<T> {
  try {
    return await client.withSession(session => session.withTransaction(() => work(session)))
  } catch (err) {
    if (err instanceof MongoServerError && err.code === NO_TRANSACTIONS) {
      throw new Error(`MongoDB bulk writes and imports need transactions, so a replica set (a one-member one will do): ${err.message}`)
    }
    throw err
  }
}

function options (scope: Scope): { session: ClientSession, maxTimeMS: number } {
  return { session: scope.session, maxTimeMS: scope.maxTimeMS }
}

function updateDocument (terms: UpdateTerms): Document {
  const update: Record<string, Document> = {}
  for (const [operator, path, value] of terms) (update[operator] ??= {})[path] = value
  return update
}

/** Applies the update's operators in MongoDB; an update that cannot apply is the client's mistake. */
async function applyUpdate<T> (work: () => Promise<T>): Promise<T> {
  try { return await work() } catch (err) {
    if (err instanceof MongoServerError && INAPPLICABLE_UPDATE.includes(err.code as number)) {
      throw new QuireError('INVALID_QUERY', 'The update cannot be applied to a matching document (e.g. $inc on a non-number, $push on a non-array)')
    }
    throw err
  }
}

async function runUpsertUpdate (scope: Scope, op: Op<'update'>, result: BulkResult): Promise<void> {
  const seed = toStored(op.upsert!)
  await scope.collection.insertOne(seed, options(scope))
  const doc = await applyUpdate(() => scope.collection.findOneAndUpdate({ _id: seed._id }, updateDocument(op.update),
    { ...options(scope), returnDocument: 'after' }))
  op.check(doc!)
  result.nUpserted++
  result.upsertedIds.push(String(seed._id))
}

async function runUpdate (scope: Scope, op: Op<'update'>, result: BulkResult): Promise<void> {
  const { collection } = scope
  const limit = op.many ? LIMITS.bulkUpdateDocuments + 1 : 1
  const before = await collection.find(op.filter, { ...options(scope), sort: { _id: 1 }, limit }).toArray()
  if (before.length > LIMITS.bulkUpdateDocuments) {
    throw new QuireError('QUERY_TOO_COMPLEX', `updateMany may change at most ${LIMITS.bulkUpdateDocuments} documents at once`)
  }
  result.nMatched += before.length
  if (before.length === 0) {
    if (op.upsert) await runUpsertUpdate(scope, op, result)
    return
  }
  const ids = { _id: { $in: before.map(doc => doc._id) } }
  const { modifiedCount } = await applyUpdate(() => collection.updateMany(ids, updateDocument(op.update), options(scope)))
  if (modifiedCount === 0) return
  const after = await collection.find(ids, { ...options(scope), sort: { _id: 1 } }).toArray()
  const changed = after.filter((doc, i) => !isDeepStrictEqual(doc, before[i]))
  for (const doc of changed) op.check({ ...doc, updatedAt: op.now, __v: (Number(doc.__v) || 0) + 1 })
  await collection.updateMany({ _id: { $in: changed.map(doc => doc._id) } }, { $set: { updatedAt: op.now }, $inc: { __v: 1 } }, options(scope))
  result.nModified += changed.length
}

async function runReplace (scope: Scope, op: Op<'replace'>, result: BulkResult): Promise<void> {
  const [old] = await scope.collection.find(op.filter, { ...options(scope), sort: { _id: 1 }, limit: 1 }).toArray()
  if (!old) {
    if (!op.upsert) return
    await scope.collection.insertOne(toStored({ ...op.upsert, ...op.replacement }), options(scope))
    result.nUpserted++
    result.upsertedIds.push(String(op.upsert._id))
    return
  }
  result.nMatched++
  const next = toStored({ ...op.replacement, ...Object.fromEntries(SYSTEM_FIELDS.map(k => [k, old[k]])) })
  if (isDeepStrictEqual(next, old)) return
  await scope.collection.replaceOne({ _id: old._id }, { ...next, updatedAt: op.now, __v: (Number(old.__v) || 0) + 1 }, options(scope))
  result.nModified++
}

async function runDelete (scope: Scope, op: Op<'delete'>, result: BulkResult): Promise<void> {
  const filter = { $and: [op.filter, { _deleted: false }] }
  const change = { $set: { _deleted: true, updatedAt: op.now }, $inc: { __v: 1 } }
  if (op.many) {
    result.nDeleted += (await scope.collection.updateMany(filter, change, options(scope))).modifiedCount
  } else if (await scope.collection.findOneAndUpdate(filter, change, { ...options(scope), sort: { _id: 1 } })) {
    result.nDeleted++
  }
}

/** Runs a bulk request's operations in order, in one transaction. */
export async function runBulkWrite (client: MongoClient, scope: Omit<Scope, 'session'>, operations: BulkOperation[]): Promise<BulkResult> {
  return await inTransaction(client, async session => {
    const inScope = { ...scope, session }
    const result: BulkResult = { nInserted: 0, nMatched: 0, nModified: 0, nUpserted: 0, nDeleted: 0, upsertedIds: [] }
    for (const op of operations) {
      switch (op.kind) {
        case 'insert':
          await scope.collection.insertOne(toStored(op.doc), options(inScope))
          result.nInserted++
          break
        case 'update': await runUpdate(inScope, op, result); break
        case 'replace': await runReplace(inScope, op, result); break
        case 'delete': await runDelete(inScope, op, result); break
      }
    }
    return result
  })
}
