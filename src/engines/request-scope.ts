// The scope of one HTTP request as the database clients see it, carried by AsyncLocalStorage
// (the Engine interface stays request-free): the signal that the client went away, its address.
import { AsyncLocalStorage } from 'node:async_hooks'

export interface RequestScope {
  /** Aborted when the client closed its connection before the response was complete. */
  readonly signal: AbortSignal
  /** The client's address (Fastify's request.ip), for per-client limits. */
  readonly client: string
}

const storage = new AsyncLocalStorage<RequestScope>()
const NEVER = new AbortController().signal

/** Runs `work` (and everything it starts) inside `scope`. */
export function runInRequestScope<T> (scope: RequestScope, work: () => T): T {
  return storage.run(scope, work)
}

/** The scope of the request being served, or undefined outside of any request (start-up, CLI). */
export function currentRequestScope (): RequestScope | undefined {
  return storage.getStore()
}

/**
 * Runs `work` for the current request's client but deaf to its signal: for work whose result other
 * requests share (one count awaited by several readers), which one client's leaving must not cancel.
 */
export function runShared<T> (work: () => T): T {
  const scope = storage.getStore()
  return scope ? storage.run({ ...scope, signal: NEVER }, work) : work()
}

