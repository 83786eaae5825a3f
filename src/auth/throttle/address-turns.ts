// One password check at a time per client address. Each check passes the failure budget
// (login-throttle.ts) before it runs, so a burst of wrong passwords sent at once would all pass
// it before the first had failed, and run all their bcrypt comparisons together: 100 of them
// filled the thread pool and held every other user's login for 5.7 s on two cores. In turns,
// an address gets at most its budget's worth of comparisons, one after another, and a burst
// beyond what may wait is refused at once.
import { QuireError } from '../../errors.ts'

export interface AddressTurns {
  /** Runs `work` once the address's earlier work has settled; RATE_LIMITED when `maxWaiting` already wait. */
  run: <T>(address: string, work: () => Promise<T>) => Promise<T>
}

interface Line {
  /** Settles once the last work in line has settled (never rejects). */
  tail: Promise<void>
  /** Work in line, the running one included. */
  size: number
}

export function createAddressTurns(maxWaiting: number): AddressTurns {
  const lines = new Map<string, Line>()
  return {
    run: async (address, work) => {
      let line = lines.get(address)
      if (line === undefined) lines.set(address, (line = { tail: Promise.resolve(), size: 0 }))
      if (line.size > maxWaiting) {
        throw new QuireError('RATE_LIMITED', 'Too many password checks from your address at once: try again in 1 s', {
          retryAfter: 1
        })
      }
      line.size++
      const result = line.tail.then(work)
      line.tail = result.then(
        () => {},
        () => {}
      )
      try {
        return await result
      } finally {
        if (--line.size === 0) lines.delete(address)
      }
    }
  }
}
