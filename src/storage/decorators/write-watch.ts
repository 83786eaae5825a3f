// Wraps an Engine so that every write to one of the watched models (or a delete that cascades
// into one) is followed by `onWrite`, awaited before the write's caller continues: the
// credential cache is emptied, here and in other processes, before a revocation is answered.
import type { Engine } from '../engine.ts'
import { wrapWrites } from './on-writes.ts'

export function watchWrites(engine: Engine, watched: string[], onWrite: () => Promise<void>): Engine {
  const names = new Set(watched)
  return {
    ...engine,
    // A write touching a watched model, followed by onWrite; other writes pass straight through.
    ...wrapWrites(engine, (models, write) => {
      if (!models.some(m => names.has(m.name))) return write()
      return (async () => {
        try {
          return await write()
        } finally {
          await onWrite()
        }
      })()
    })
  }
}
