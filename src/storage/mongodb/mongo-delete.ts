// Deletes for the MongoDB engine (DeletePlan, src/storage/engine.ts): one document
// and, as its plan says, the documents that link to it. Every check runs before the
// first write; a cascade with documents to delete runs all or nothing: in a transaction
// (a replica set), else taking back its writes when one fails (mongo-bulk-write.ts).
import type { Collection, Document, MongoClient } from 'mongodb'
import type { DeleteOutcome, DeletePlan } from '../engine.ts'
import { actingUserId } from '../../runtime/acting-user.ts'
import type { Model } from '../../models/model-definition.ts'
import type { Filter } from '../../query/types.ts'
import { hiddenFields } from '../../permissions/field-policy.ts'
import { atomically, type Atomic, type StoredDoc } from './mongo-bulk-write.ts'
import { projectionOf } from './mongo-pipeline.ts'

export interface DeleteScope {
  client: MongoClient
  collectionOf: (model: Model) => Collection<StoredDoc>
  maxTimeMS: number
  /** The server has transactions; without them a cascade takes back its writes when it fails (mongo-bulk-write.ts). */
  transactions: boolean
  log: (msg: string) => void
}

async function anyMatches(scope: DeleteScope, model: Model, filter: Filter): Promise<boolean> {
  return (await scope.collectionOf(model).countDocuments(filter, { limit: 1, maxTimeMS: scope.maxTimeMS })) > 0
}

/** Deletes the documents matching `filter` (soft: marks them deleted); returns how many. */
async function deleteMatching(
  scope: DeleteScope,
  model: Model,
  filter: Filter,
  plan: DeletePlan,
  { session, undo }: Atomic
): Promise<number> {
  const options = { maxTimeMS: scope.maxTimeMS, ...(session && { session }) }
  const collection = scope.collectionOf(model)
  if (undo) {
    // The documents it will delete, read first to be put back; then exactly those are deleted.
    const docs = await collection.find(filter, options).toArray()
    undo.restore(collection, docs)
    filter = { $and: [filter, { _id: { $in: docs.map(doc => doc._id) } }] }
  }
  if (plan.permanent) return (await collection.deleteMany(filter, options)).deletedCount
  const change = {
    $set: { _deleted: true, updatedAt: plan.now, _updated_by_id: actingUserId() ?? null },
    $inc: { __v: 1 }
  }
  return (await collection.updateMany(filter, change, options)).modifiedCount
}

async function refusal(scope: DeleteScope, plan: DeletePlan): Promise<DeleteOutcome | undefined> {
  for (const { model, field, linking, blocked } of plan.referrers) {
    if (!plan.cascade && (await anyMatches(scope, model, linking)))
      return { status: 'referenced', model: model.name, field }
    if (plan.cascade && (await anyMatches(scope, model, blocked)))
      return { status: 'blocked', model: model.name, field }
  }
  return undefined
}

async function deleteAll(
  scope: DeleteScope,
  model: Model,
  plan: DeletePlan,
  id: StoredDoc['_id'],
  atomic: Atomic
): Promise<Array<{ model: string; field: string; count: number }>> {
  await deleteMatching(scope, model, { _id: id }, plan, atomic)
  const cascaded = []
  for (const { model: referrer, field, linking } of plan.cascade ? plan.referrers : []) {
    cascaded.push({ model: referrer.name, field, count: await deleteMatching(scope, referrer, linking, plan, atomic) })
  }
  return cascaded
}

export async function runDelete(scope: DeleteScope, model: Model, plan: DeletePlan): Promise<DeleteOutcome> {
  const projection = projectionOf(undefined, hiddenFields(model)) as Document | undefined
  const target = await scope
    .collectionOf(model)
    .findOne(plan.target, { maxTimeMS: scope.maxTimeMS, ...(projection && { projection }) })
  if (!target) return { status: 'missing' }
  const refused = await refusal(scope, plan)
  if (refused) return refused
  const id = target._id
  const writesReferrers = plan.cascade && plan.referrers.length > 0
  const cascaded = writesReferrers
    ? await atomically(scope.client, scope.transactions, scope.log, atomic => deleteAll(scope, model, plan, id, atomic))
    : await deleteAll(scope, model, plan, id, {})
  return { status: 'deleted', document: JSON.stringify(target), cascaded }
}
