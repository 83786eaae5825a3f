// A fair share of the server's work between clients (each one address, IPv6 by /64:
// client-address.ts). While more than one client is active, a client runs at most its share of
// requests at once and its others wait in its own line, first come first served; while one client
// alone is active it is not held back, so a single API consumer keeps the whole server. Why: every
// request in flight takes turns on the one event loop and the database's cores, so one client
// sending cheap requests without pause on 8 connections made another client's reads 5 times
// slower (p99 2 ms idle, 10 ms under it on two cores). By default the share is the process's
// cores divided among the clients active (at least 1): on two cores, two requests of one client
// running at once left another's p99 at 9-10 ms, one at 4-6 ms, for 5% less of the busy client's
// throughput. A client stays active for `quietMs` after its last request ended, so that the short
// gaps of a client reading one request after another do not let another take the whole server
// back between them. A client going quiet sets one timer.

export interface FairShareOptions {
  /** Requests one client may run at once while `activeClients` (2 or more) are active. */
  perClient: (activeClients: number) => number
  /** Requests one client may have waiting; more are refused. */
  maxWaiting: number
  /** How long a client counts as active after its last request ended. */
  quietMs: number
}

interface Entry {
  /** false: the client already had maxWaiting requests waiting, and `start` will not be called. */
  admitted: boolean
  /** Call once when the request has ended (answered, or its client left); true if it was still waiting. */
  leave: () => boolean
}

export interface FairShare {
  /** Calls `start` now, or once it is `client`'s turn. */
  enter: (client: string, start: () => void) => Entry
  /** Clients active now: running, waiting or not yet quiet. */
  activeClients: () => number
}

interface Line {
  running: number
  waiting: Waiter[]
  /** Set while the client is quiet: when it fires, the client is no longer active. */
  quiet?: ReturnType<typeof setTimeout>
}

interface Waiter {
  start: () => void
  state: 'waiting' | 'running' | 'left'
}

const REFUSED: Entry = { admitted: false, leave: () => false }

/** The default share: `cores` divided among the clients active, at least one request each. */
export const shareOfCores =
  (cores: number) =>
  (activeClients: number): number =>
    Math.max(1, Math.floor(cores / activeClients))

export function createFairShare({ perClient, maxWaiting, quietMs }: FairShareOptions): FairShare {
  const lines = new Map<string, Line>()
  const mayRun = (line: Line): boolean => lines.size === 1 || line.running < perClient(lines.size)

  const run = (line: Line, waiter: Waiter): void => {
    waiter.state = 'running'
    line.running++
    waiter.start()
  }

  const goQuietIfIdle = (client: string, line: Line): void => {
    if (line.running > 0 || line.waiting.length > 0 || line.quiet !== undefined) return
    line.quiet = setTimeout(() => lines.delete(client), quietMs)
    line.quiet.unref()
  }

  return {
    enter: (client, start) => {
      let line = lines.get(client)
      if (line === undefined) lines.set(client, (line = { running: 0, waiting: [] }))
      else if (line.quiet !== undefined) {
        clearTimeout(line.quiet)
        line.quiet = undefined
      }
      const waiter: Waiter = { start, state: 'waiting' }
      if (mayRun(line)) run(line, waiter)
      else if (line.waiting.length >= maxWaiting) return REFUSED
      else line.waiting.push(waiter)
      const own = line
      return {
        admitted: true,
        leave: () => {
          const wasWaiting = waiter.state === 'waiting'
          if (waiter.state === 'running') {
            own.running--
            while (own.waiting.length > 0 && mayRun(own)) run(own, own.waiting.shift() as Waiter)
          } else if (wasWaiting) own.waiting.splice(own.waiting.indexOf(waiter), 1)
          waiter.state = 'left'
          goQuietIfIdle(client, own)
          return wasWaiting
        }
      }
    },
    activeClients: () => lines.size
  }
}
