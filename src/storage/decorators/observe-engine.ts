// Wraps an Engine so that an observer sees every operation start and end (with its error):
// the metrics plugin counts operations in flight, their durations and errors from it. Only used
// when metrics are on, so the hot path pays nothing otherwise.
import type { Engine } from '../engine.ts'

export interface EngineObserver {
  /** An operation (the Engine method's name) starts; call the returned function when it ends. */
  start: (operation: string) => (error?: unknown) => void
}

/** Methods that are not one database round trip: streamed export (also of a snapshot), and closing the pool. */
const UNOBSERVED = new Set(['exportAll', 'readSnapshot', 'close'])

export function observeEngine(engine: Engine, observer: EngineObserver): Engine {
  const observed: Record<string, unknown> = { ...engine }
  for (const [name, method] of Object.entries(engine)) {
    if (typeof method !== 'function' || UNOBSERVED.has(name)) continue
    observed[name] = async (...args: unknown[]) => {
      const end = observer.start(name)
      try {
        const result = await (method as (...a: unknown[]) => Promise<unknown>)(...args)
        end()
        return result
      } catch (err) {
        end(err)
        throw err
      }
    }
  }
  return observed as unknown as Engine
}
