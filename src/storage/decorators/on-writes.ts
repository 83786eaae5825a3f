// The one list of the Engine methods that write, and the models each one touches (a delete may
// cascade into the models that link to its target). Decorators that must act on every write
// (the count cache, the credential-write watch) wrap these and nothing else, so a new write
// method is added here once.
import type { Engine } from '../engine.ts'
import type { Model } from '../../models/model-definition.ts'

/** Runs one write (`write`) that touches `models`, doing what the decorator does around it. */
export type AroundWrite = <R>(models: Model[], write: () => Promise<R>) => Promise<R>

export type WriteMethods = Pick<Engine, 'insert' | 'updateOne' | 'bulkWrite' | 'insertMany' | 'deleteOne'>

/** The engine's write methods, each run through `around`. */
export function wrapWrites(engine: Engine, around: AroundWrite): WriteMethods {
  return {
    insert: (model, ...args) => around([model], () => engine.insert(model, ...args)),
    updateOne: (model, ...args) => around([model], () => engine.updateOne(model, ...args)),
    bulkWrite: (model, ...args) => around([model], () => engine.bulkWrite(model, ...args)),
    insertMany: (model, ...args) => around([model], () => engine.insertMany(model, ...args)),
    deleteOne: (model, plan) =>
      around([model, ...plan.referrers.map(r => r.model)], () => engine.deleteOne(model, plan))
  }
}
