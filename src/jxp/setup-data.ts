// POST /setup/data (JXP's seed route): `{<collection>: [documents]}` inserted model by model,
// a collection named by its model or by Mongoose's plural of it (`users`, `tests`). Users go
// through the same checks as POST /api/user (bcrypt), other models through a bulk insert (one
// transaction per model: the model hooks, schema and unique indexes apply). JXP writes the rows
// raw; here every document is checked. Answered as JXP does: `results.<collection>.insertedCount`.
import type { DocumentContext } from '../documents/document-context.ts'
import { bulkWrite } from '../documents/bulk-write.ts'
import type { Doc } from '../storage/engine.ts'
import { QuireError } from '../errors.ts'
import type { Model } from '../models/model-definition.ts'
import { createUser } from '../auth/users/user-records.ts'
import { USER_MODEL } from '../auth/users/user-model.ts'

/** The model a collection name stands for: its own name, or Mongoose's plural (an added s). */
function modelOf(ctx: DocumentContext, collection: string): Model {
  if (ctx.registry.has(collection)) return ctx.registry.get(collection)
  if (collection.endsWith('s') && ctx.registry.has(collection.slice(0, -1)))
    return ctx.registry.get(collection.slice(0, -1))
  throw new QuireError('MODEL_NOT_FOUND', `No model for the collection ${collection.slice(0, 64)}`)
}

function collectionsOf(ctx: DocumentContext, body: unknown): Array<{ name: string; model: Model; docs: Doc[] }> {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new QuireError('INVALID_BODY', 'The body must be an object of collections: {"<model>": [documents]}')
  return Object.entries(body).map(([name, docs]) => {
    if (!Array.isArray(docs) || docs.some(doc => !doc || typeof doc !== 'object' || Array.isArray(doc))) {
      throw new QuireError('INVALID_BODY', `${name.slice(0, 64)} must be an array of documents`)
    }
    return { name, model: modelOf(ctx, name), docs: docs as Doc[] }
  })
}

/**
 * Inserts the seed data as `ctx`'s caller (an admin); `clean` prepares each document (under
 * JXP_COMPAT: drops fields its model does not name). Users first, so that later rows may link to them.
 */
export async function insertSeedData(
  ctx: DocumentContext,
  body: unknown,
  clean: (model: Model, doc: Doc) => Doc
): Promise<Record<string, { insertedCount: number }>> {
  const collections = collectionsOf(ctx, body).sort(
    (a, b) => Number(b.model === USER_MODEL) - Number(a.model === USER_MODEL)
  )
  const results: Record<string, { insertedCount: number }> = {}
  for (const { name, model, docs } of collections) {
    if (docs.length === 0) {
      results[name] = { insertedCount: 0 }
      continue
    }
    if (model.name === USER_MODEL.name) {
      for (const doc of docs) await createUser(ctx.system, clean(model, doc), ctx.config.bcryptRounds)
      results[name] = { insertedCount: docs.length }
    } else {
      const result = await bulkWrite(
        ctx,
        model,
        docs.map(doc => ({ insertOne: { document: clean(model, doc) } }))
      )
      results[name] = { insertedCount: result.nInserted }
    }
  }
  return results
}
