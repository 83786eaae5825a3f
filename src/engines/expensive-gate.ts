// Bounds how many expensive statements run at once, overall and per client address, so that
// simple ones (reads and writes by id, auth lookups) always find a connection. A statement that
// waits too long for a slot is answered 503; one whose client went away stops waiting.
import { currentRequestScope } from './request-scope.ts'
import { QuireError } from '../errors.ts'

export interface GateOptions {
  /** Expensive statements running at once, in all. */
  slots: number
  /** Expensive statements running at once for one client address. */
  perClient: number
  /** The longest a statement waits for a slot before it is answered 503 UNAVAILABLE. */
  maxWaitMs: number
  /** Statements that may wait at once; more are answered 503 at once. */
  maxWaiting: number
}

export interface ExpensiveGate {
  /** Runs `work` once a slot is free for the current request's client (or the service itself). */
  run: <T>(work: () => Promise<T>) => Promise<T>
}

interface Waiter { client: string, admit: () => void }

/** The address the service's own work (start-up, CLI, no request) counts under. */
const SERVICE = ''

function busy (): QuireError {
  return new QuireError('UNAVAILABLE', 'The server is busy with other expensive queries: retry shortly')
}

export function createExpensiveGate (options: GateOptions): ExpensiveGate {
  const running = new Map<string, number>()
  const lastAdmitted = new Map<string, number>()
  const waiting: Waiter[] = []
  let total = 0
  let admissions = 0

  const runningFor = (client: string): number => running.get(client) ?? 0
  const canRun = (client: string): boolean => total < options.slots && runningFor(client) < options.perClient

  function take (client: string): void {
    total++
    running.set(client, runningFor(client) + 1)
    lastAdmitted.set(client, ++admissions)
  }

  function release (client: string): void {
    total--
    const left = runningFor(client) - 1
    if (left > 0) running.set(client, left)
    else running.delete(client)
    if (left === 0 && !waiting.some(w => w.client === client)) lastAdmitted.delete(client)
    admitNext()
  }

  /** The next waiter: of the clients that may run, the one admitted least recently (round robin). */
  function admitNext (): void {
    let best: Waiter | undefined
    for (const w of waiting) {
      if (!canRun(w.client)) continue
      if (!best || (lastAdmitted.get(w.client) ?? 0) < (lastAdmitted.get(best.client) ?? 0)) best = w
    }
    if (!best) return
    waiting.splice(waiting.indexOf(best), 1)
    take(best.client)
    best.admit()
  }

  function wait (client: string, signal?: AbortSignal): Promise<void> {
    if (waiting.length >= options.maxWaiting) return Promise.reject(busy())
    return new Promise((resolve, reject) => {
      const leave = (err: unknown): void => {
        const at = waiting.indexOf(waiter)
        if (at === -1) return
        waiting.splice(at, 1)
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
        reject(err)
      }
      const onAbort = (): void => leave(signal!.reason)
      const waiter: Waiter = {
        client,
        admit: () => { clearTimeout(timer); signal?.removeEventListener('abort', onAbort); resolve() }
      }
      const timer = setTimeout(() => leave(busy()), options.maxWaitMs)
      signal?.addEventListener('abort', onAbort, { once: true })
      waiting.push(waiter)
    })
  }

  return {
    run: async (work) => {
      const scope = currentRequestScope()
      const client = scope?.client ?? SERVICE
      if (scope?.signal.aborted) throw scope.signal.reason
      // Waiters left while a slot is free are all held back by their own client's share.
      if (canRun(client)) take(client)
      else await wait(client, scope?.signal)
      try { return await work() } finally { release(client) }
    }
  }
}
