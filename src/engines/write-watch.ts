// Wraps an Engine so that every write to one of the watched models (or a delete that cascades
// into one) is followed by `onWrite`, awaited before the write's caller continues: the
// credential cache is emptied, here and in other processes, before a revocation is answered.
import type { Engine } from './engine.ts'
import type { Model } from '../models/model-definition.ts'

export function watchWrites (engine: Engine, watched: string[], onWrite: () => Promise<void>): Engine {
  const names = new Set(watched)
  const after = async <R>(models: Model[], write: () => Promise<R>): Promise<R> => {
    try { return await write() } finally {
      if (models.some(m => names.has(m.name))) await onWrite()
    }
  }
  return {
    ...engine,
    insert: async (model, ...args) => await after([model], () => engine.insert(model, ...args)),
    updateOne: async (model, ...args) => await after([model], () => engine.updateOne(model, ...args)),
    bulkWrite: async (model, ...args) => await after([model], () => engine.bulkWrite(model, ...args)),
    insertMany: async (model, ...args) => await after([model], () => engine.insertMany(model, ...args)),
    deleteOne: async (model, plan) => await after([model, ...plan.referrers.map(r => r.model)], () => engine.deleteOne(model, plan))
  }
}
