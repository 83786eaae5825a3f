// Bulk writes and imports for the MongoDB engine, all or nothing: in one transaction where the
// server has them (a replica set or mongos), else (a standalone MongoDB, FerretDB v1) with an undo
// log: every write first notes how to take it back, and a failure takes back what was written, in
// reverse order, before the error is answered. The undo is not isolation: another client may read
// the half-done request meanwhile, and a process killed mid-request leaves it half done
// (docs/mongodb.md). Updates run natively; the documents they changed are read back, checked by
// the caller's validator, and get their __v and updatedAt bump.
import { isDeepStrictEqual } from 'node:util'
import { MongoServerError, type ClientSession, type Collection, type Document, type MongoClient } from 'mongodb'
import type { BulkOperation, BulkResult, Doc, UpdateTerms } from '../engine.ts'
import { LIMITS } from '../../validation/limits.ts'
import { SYSTEM_FIELDS, type Model } from '../../models/model-definition.ts'
import { QuireError } from '../../errors.ts'
import { actingUserId } from '../../runtime/acting-user.ts'

type Op<K extends BulkOperation['kind']> = Extract<BulkOperation, { kind: K }>

interface Scope extends Atomic {
  model: Model
  collection: Collection<StoredDoc>
  maxTimeMS: number
}

/** How a write takes part in its request's all-or-nothing: a transaction's session, or an undo log. */
export interface Atomic {
  session?: ClientSession
  undo?: UndoLog
}

/** Steps that take back writes already made, run newest first when the request fails. */
class UndoLog {
  private readonly steps: Array<() => Promise<unknown>> = []

  /** Puts `docs` back as they are now (replaced, or inserted again when deleted). Note it before writing them. */
  restore(collection: Collection<StoredDoc>, docs: StoredDoc[]): void {
    if (docs.length)
      this.steps.push(() =>
        collection.bulkWrite(
          docs.map(doc => ({ replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true } }))
        )
      )
  }

  /** Removes documents this request inserted. Note it once they are inserted (a refused insert must remove nothing). */
  remove(collection: Collection<StoredDoc>, ids: string[]): void {
    if (ids.length) this.steps.push(() => collection.deleteMany({ _id: { $in: ids } }))
  }

  async run(log: (msg: string) => void): Promise<void> {
    for (const step of this.steps.reverse()) {
      await step().catch(err => {
        log(`a failed MongoDB write could not be fully undone: ${(err as Error).message}`)
      })
    }
  }
}

/**
 * Server errors of an update that cannot apply to a document: BadValue, TypeMismatch, PathNotViable,
 * ConflictingUpdateOperators.
 */
const INAPPLICABLE_UPDATE = [2, 14, 28, 40]
/** IllegalOperation: the server is a standalone, which has no transactions. */
const NO_TRANSACTIONS = 20

/** A document as stored: its _id is the 24-hex string the service generated. */
export interface StoredDoc extends Document {
  _id: string
}

/** The document as the SQL engines store it: plain JSON (no Date objects, no undefined). */
export function toStored(doc: Doc): StoredDoc {
  return JSON.parse(JSON.stringify(doc)) as StoredDoc
}

/** Runs `work` all or nothing: in one transaction when `transactions`, else taking back its writes when it fails. */
export async function atomically<T>(
  client: MongoClient,
  transactions: boolean,
  log: (msg: string) => void,
  work: (atomic: Atomic) => Promise<T>
): Promise<T> {
  if (!transactions) {
    const undo = new UndoLog()
    try {
      return await work({ undo })
    } catch (err) {
      await undo.run(log)
      throw err
    }
  }
  try {
    return await client.withSession(session => session.withTransaction(() => work({ session })))
  } catch (err) {
    if (err instanceof MongoServerError && err.code === NO_TRANSACTIONS) {
      throw new Error(`MongoDB reported a replica set but refused a transaction: ${err.message}`)
    }
    throw err
  }
}

function options(scope: Scope): { session?: ClientSession; maxTimeMS: number } {
  return { ...(scope.session && { session: scope.session }), maxTimeMS: scope.maxTimeMS }
}

function updateDocument(terms: UpdateTerms): Document {
  const update: Record<string, Document> = {}
  for (const [operator, path, value] of terms) (update[operator] ??= {})[path] = value
  return update
}

/** Applies the update's operators in MongoDB; an update that cannot apply is the client's mistake. */
async function applyUpdate<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (err) {
    if (err instanceof MongoServerError && INAPPLICABLE_UPDATE.includes(err.code as number)) {
      throw new QuireError(
        'INVALID_QUERY',
        'The update cannot be applied to a matching document (e.g. $inc on a non-number, $push on a non-array)'
      )
    }
    throw err
  }
}

async function runUpsertUpdate(scope: Scope, op: Op<'update'>, result: BulkResult): Promise<void> {
  const seed = toStored(op.upsert!)
  await scope.collection.insertOne(seed, options(scope))
  scope.undo?.remove(scope.collection, [seed._id])
  const doc = await applyUpdate(() =>
    scope.collection.findOneAndUpdate({ _id: seed._id }, updateDocument(op.update), {
      ...options(scope),
      returnDocument: 'after'
    })
  )
  op.check(doc!)
  result.nUpserted++
  result.upsertedIds.push(String(seed._id))
}

async function runUpdate(scope: Scope, op: Op<'update'>, result: BulkResult): Promise<void> {
  const { collection } = scope
  const limit = op.many ? LIMITS.bulkUpdateDocuments + 1 : 1
  const before = await collection.find(op.filter, { ...options(scope), sort: { _id: 1 }, limit }).toArray()
  if (before.length > LIMITS.bulkUpdateDocuments) {
    throw new QuireError(
      'QUERY_TOO_COMPLEX',
      `updateMany may change at most ${LIMITS.bulkUpdateDocuments} documents at once`
    )
  }
  result.nMatched += before.length
  if (before.length === 0) {
    if (op.upsert) await runUpsertUpdate(scope, op, result)
    return
  }
  const ids = { _id: { $in: before.map(doc => doc._id) } }
  scope.undo?.restore(collection, before)
  const { modifiedCount } = await applyUpdate(() =>
    collection.updateMany(ids, updateDocument(op.update), options(scope))
  )
  if (modifiedCount === 0) return
  const after = await collection.find(ids, { ...options(scope), sort: { _id: 1 } }).toArray()
  const changed = after.filter((doc, i) => !isDeepStrictEqual(doc, before[i]))
  const by = actingUserId() ?? null
  for (const doc of changed)
    op.check({ ...doc, updatedAt: op.now, __v: (Number(doc.__v) || 0) + 1, _updated_by_id: by })
  await collection.updateMany(
    { _id: { $in: changed.map(doc => doc._id) } },
    { $set: { updatedAt: op.now, _updated_by_id: by }, $inc: { __v: 1 } },
    options(scope)
  )
  result.nModified += changed.length
}

async function runReplace(scope: Scope, op: Op<'replace'>, result: BulkResult): Promise<void> {
  const [old] = await scope.collection.find(op.filter, { ...options(scope), sort: { _id: 1 }, limit: 1 }).toArray()
  if (!old) {
    if (!op.upsert) return
    const inserted = toStored({ ...op.upsert, ...op.replacement })
    await scope.collection.insertOne(inserted, options(scope))
    scope.undo?.remove(scope.collection, [inserted._id])
    result.nUpserted++
    result.upsertedIds.push(String(op.upsert._id))
    return
  }
  result.nMatched++
  const next = toStored({ ...op.replacement, ...Object.fromEntries(SYSTEM_FIELDS.map(k => [k, old[k]])) })
  if (isDeepStrictEqual(next, old)) return
  scope.undo?.restore(scope.collection, [old])
  await scope.collection.replaceOne(
    { _id: old._id },
    { ...next, updatedAt: op.now, __v: (Number(old.__v) || 0) + 1, _updated_by_id: actingUserId() ?? null },
    options(scope)
  )
  result.nModified++
}

async function runDelete(scope: Scope, op: Op<'delete'>, result: BulkResult): Promise<void> {
  let filter: Document = { $and: [op.filter, { _deleted: false }] }
  const change = {
    $set: { _deleted: true, updatedAt: op.now, _updated_by_id: actingUserId() ?? null },
    $inc: { __v: 1 }
  }
  if (scope.undo) {
    // The documents it will mark, read first to be put back; then exactly those are marked.
    const docs = await scope.collection
      .find(filter, { ...options(scope), sort: { _id: 1 }, ...(!op.many && { limit: 1 }) })
      .toArray()
    scope.undo.restore(scope.collection, docs)
    filter = { $and: [filter, { _id: { $in: docs.map(doc => doc._id) } }] }
  }
  if (op.many) {
    result.nDeleted += (await scope.collection.updateMany(filter, change, options(scope))).modifiedCount
  } else if (await scope.collection.findOneAndUpdate(filter, change, { ...options(scope), sort: { _id: 1 } })) {
    result.nDeleted++
  }
}

/** Runs a bulk request's operations in order, all or nothing. */
export async function runBulkWrite(
  client: MongoClient,
  transactions: boolean,
  log: (msg: string) => void,
  scope: Omit<Scope, keyof Atomic>,
  operations: BulkOperation[]
): Promise<BulkResult> {
  return await atomically(client, transactions, log, async atomic => {
    const inScope: Scope = { ...scope, ...atomic }
    const result: BulkResult = { nInserted: 0, nMatched: 0, nModified: 0, nUpserted: 0, nDeleted: 0, upsertedIds: [] }
    for (const op of operations) {
      switch (op.kind) {
        case 'insert':
          {
            const doc = toStored(op.doc)
            await scope.collection.insertOne(doc, options(inScope))
            inScope.undo?.remove(scope.collection, [doc._id])
            result.nInserted++
          }
          break
        case 'update':
          await runUpdate(inScope, op, result)
          break
        case 'replace':
          await runReplace(inScope, op, result)
          break
        case 'delete':
          await runDelete(inScope, op, result)
          break
      }
    }
    return result
  })
}
