// Wraps an Engine so that every write to one of the watched models (or a delete that cascades
// into one; 'every' model for the response cache) is followed by `onWrite` with the models
// written, awaited before the write's caller continues: the credential cache is emptied, here
// and in other processes, before a revocation is answered.
import type { Engine } from './engine.ts'
import type { Model } from '../models/model-definition.ts'

export function watchWrites (engine: Engine, watched: string[] | 'every', onWrite: (models: Model[]) => Promise<void>): Engine {
  const names = new Set(watched === 'every' ? [] : watched)
  /** `write`, followed by onWrite when it touches a watched model; other writes pass straight through. */
  const after = <R>(models: Model[], write: () => Promise<R>): Promise<R> => {
    if (watched !== 'every' && !models.some(m => names.has(m.name))) return write()
    return (async () => { try { return await write() } finally { await onWrite(models) } })()
  }
  return {
    ...engine,
    insert: (model, ...args) => after([model], () => engine.insert(model, ...args)),
    updateOne: (model, ...args) => after([model], () => engine.updateOne(model, ...args)),
    bulkWrite: (model, ...args) => after([model], () => engine.bulkWrite(model, ...args)),
    insertMany: (model, ...args) => after([model], () => engine.insertMany(model, ...args)),
    deleteOne: (model, plan) => after([model, ...plan.referrers.map(r => r.model)], () => engine.deleteOne(model, plan))
  }
}
