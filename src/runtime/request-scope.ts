// The scope of one HTTP request as the database clients see it, carried by AsyncLocalStorage
// (the Engine interface stays request-free): the signal that the client went away, its address,
// and who is calling (the change capture records who wrote).
import { AsyncLocalStorage } from 'node:async_hooks'
import type { Caller } from '../auth/caller.ts'

export interface RequestScope {
  /** Aborted when the client closed its connection before the response was complete. */
  readonly signal: AbortSignal
  /** The client, as src/runtime/client-address.ts decides who is one, for per-client limits. */
  readonly client: string
  /** The caller, once the request's credentials were resolved (null or undefined before). */
  readonly caller?: Caller | null
}

const storage = new AsyncLocalStorage<RequestScope>()
/** A signal that never aborts: for work no client's leaving may cancel. */
export const NEVER_ABORTED = new AbortController().signal

/**
 * `scope` with another signal, as plain data: spreading a scope would drop the accessors of the
 * request's own (plugins/request-scope.ts), the caller among them.
 */
export function withSignal(scope: RequestScope, signal: AbortSignal): RequestScope {
  return { client: scope.client, caller: scope.caller, signal }
}

/** Runs `work` (and everything it starts) inside `scope`. */
export function runInRequestScope<T>(scope: RequestScope, work: () => T): T {
  return storage.run(scope, work)
}

/** Runs `work` (and everything it starts) outside any request: shared work no one client's leaving may cancel. */
export function outsideRequestScope<T>(work: () => T): T {
  return storage.exit(work)
}

/** The scope of the request being served, or undefined outside of any request (start-up, CLI). */
export function currentRequestScope(): RequestScope | undefined {
  return storage.getStore()
}

/** Work that several requests share (one count awaited by several readers). */
export interface SharedWork {
  /** Counts the current request as one more reader; false when every reader had left and the work was cancelled. */
  join: () => boolean
  /** Runs `work` for the current request's client under the shared signal, which aborts once every reader left. */
  run: <T>(work: () => T) => T
}

export function shareWork(): SharedWork {
  const controller = new AbortController()
  let readers = 0
  let pinned = false
  return {
    join: () => {
      if (controller.signal.aborted) return false
      const signal = storage.getStore()?.signal
      if (!signal)
        pinned = true // the service's own work is never cancelled
      else if (!signal.aborted) {
        readers++
        signal.addEventListener(
          'abort',
          () => {
            if (--readers === 0 && !pinned) controller.abort(signal.reason)
          },
          { once: true }
        )
      }
      return true
    },
    run: work => {
      const scope = storage.getStore()
      return scope ? storage.run(withSignal(scope, controller.signal), work) : work()
    }
  }
}
