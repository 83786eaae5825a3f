// Wraps an Engine so that every write to one of the watched models (or a delete that cascades
// into one; 'every' model for the response cache) is followed by `onWrite` with the models
// written, awaited before the write's caller continues: the credential cache is emptied, here
// and in other processes, before a revocation is answered.
import type { Engine } from '../engine.ts'
import type { Model } from '../../models/model-definition.ts'
import { wrapWrites } from './on-writes.ts'

/** Which models' writes to follow, and what follows them. */
export interface WriteWatch {
  models: string[] | 'every'
  onWrite: (written: Model[]) => Promise<void>
}

export function watchWrites(engine: Engine, { models: watched, onWrite }: WriteWatch): Engine {
  const names = new Set(watched === 'every' ? [] : watched)
  return {
    ...engine,
    // A write touching a watched model, followed by onWrite; other writes pass straight through.
    ...wrapWrites(engine, (models, write) => {
      if (watched !== 'every' && !models.some(m => names.has(m.name))) return write()
      return (async () => {
        try {
          return await write()
        } finally {
          await onWrite(models)
        }
      })()
    })
  }
}
