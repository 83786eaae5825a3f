// One follower of the SQL change log: delivers numbered changes strictly in position
// order, one batch at a time. Positions are contiguous, so a batch that does not start
// right after the last one delivered (a notification lost while the listening
// connection was down, or dropped because the follower was behind) is filled from the
// table instead; so is everything while too many batches wait.
import type { StoredChange } from '../../change-log.ts'

export interface Follower {
  /** Changes just numbered (in order); already delivered ones are skipped, gaps filled from the log. */
  offer: (changes: StoredChange[]) => void
  /** Reads whatever the log holds after the last delivered change. */
  catchUp: () => void
}

export interface FollowerOptions {
  /** The position the follower starts after. */
  start: string
  deliver: (changes: StoredChange[]) => Promise<void>
  read: (after: string, limit: number) => Promise<StoredChange[] | 'gone'>
  log: (msg: string) => void
}

/** Batches that may wait in memory; beyond them the follower reads from the log when its turn comes. */
const MAX_WAITING = 64
const PAGE = 500

export function createFollower({ start, deliver, read, log }: FollowerOptions): Follower {
  let last = BigInt(start)
  let chain: Promise<void> = Promise.resolve()
  let waiting = 0
  let fillQueued = false

  function enqueue(work: () => Promise<void>): void {
    waiting++
    chain = chain
      .then(work)
      .catch(err => log(`change feed delivery failed: ${(err as Error).message}`))
      .finally(() => {
        waiting--
      })
  }

  async function fill(): Promise<void> {
    for (;;) {
      const page = await read(String(last), PAGE)
      if (page === 'gone') {
        log(`the change feed fell behind the change log's retention after position ${last}: changes were skipped`)
        return
      }
      if (page.length === 0) return
      last = BigInt(page[page.length - 1].pos)
      await deliver(page)
    }
  }

  async function take(changes: StoredChange[]): Promise<void> {
    const fresh = changes.filter(change => BigInt(change.pos) > last)
    if (fresh.length === 0) return
    if (BigInt(fresh[0].pos) !== last + 1n) return await fill()
    last = BigInt(fresh[fresh.length - 1].pos)
    await deliver(fresh)
  }

  /** Queues one read of the log (not another while one waits: it will read everything). */
  function requestFill(): void {
    if (fillQueued) return
    fillQueued = true
    enqueue(async () => {
      fillQueued = false
      await fill()
    })
  }

  return {
    offer: changes => {
      waiting >= MAX_WAITING ? requestFill() : enqueue(() => take(changes))
    },
    catchUp: requestFill
  }
}
