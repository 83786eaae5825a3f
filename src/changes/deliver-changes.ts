// Hands changes to subscribers: each change is matched against every subscriber's
// current permission filter (resolving a subscriber's caller again first where its
// credentials changed, or when it was resolved too long ago) and queued on its sink. Live
// delivery never queues past a subscriber's bound: a subscriber whose events do not fit
// falls behind instead, and then reads the change log at its own pace. Changes go out in slices,
// one per turn of the event loop, each ending after SUBSCRIBERS_PER_TURN subscribers or
// BYTES_PER_TURN bytes of events: each hand-over writes to a socket at once, and 200 streams of
// one model taking a 16 KB change in one turn held every other request back for milliseconds, ten
// times a second. The bytes bound the slice where the kernel makes writes dear: a client that
// never reads lets its socket take megabytes, and on a machine whose fresh memory is slow to
// touch (a virtual machine's) copying 3.2 MB cost 30 ms of system time.
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Engine } from '../storage/engine.ts'
import type { StoredChange } from '../storage/change-log.ts'
import type { ModelRegistry } from '../models/model-registry.ts'
import { USER_MODEL } from '../auth/users/user-model.ts'
import { CREDENTIAL_MODEL } from '../auth/credentials/credential-model.ts'
import { QuireError } from '../errors.ts'
import { feedEventOf } from './feed-event.ts'
import { matchChanges } from './match-changes.ts'
import { refreshSubscription, type Subscription } from './subscription.ts'

export interface DeliveryOptions {
  engine: Engine
  registry: ModelRegistry
  /** What may wait for one subscriber (bytes, about). */
  queueBytes: number
  /** A caller resolved this long ago is resolved again before its next change (token expiry). */
  recheckMs: number
  now: () => number
  log: (msg: string) => void
}

export interface Delivery {
  /**
   * Sends `changes` to `group`. Live: a subscriber whose matching events would pass its bound gets
   * none of them, keeps its cursor before them, and is returned (it fell behind); otherwise (a
   * subscriber reading its backlog, paced by the caller) everything is queued.
   */
  deliver: (group: Subscription[], changes: StoredChange[], live: boolean) => Promise<Subscription[]>
  /** Resolves again the callers resolved longer ago than the recheck interval. */
  refreshStale: (group: Subscription[]) => Promise<void>
}

/** The user whose credentials or record a change touched, when it did. */
export function userOfChange(change: StoredChange): string | undefined {
  if (change.model === USER_MODEL.name) return change.docId
  if (change.model === CREDENTIAL_MODEL.name && typeof change.doc?.user_id === 'string') return change.doc.user_id
  return undefined
}

export const isOpen = (sub: Subscription): boolean => !sub.request.sink.closed

/** At most this many subscribers, and this many bytes of events, are handed over in one turn of the event loop. */
const SUBSCRIBERS_PER_TURN = 32
const BYTES_PER_TURN = 64 * 1024

export function createDelivery(options: DeliveryOptions): Delivery {
  const { engine, registry, queueBytes, log, now } = options

  async function refreshStale(group: Subscription[]): Promise<void> {
    const stale = group.filter(
      sub => isOpen(sub) && sub.caller.userId !== undefined && now() - sub.checkedAt >= options.recheckMs
    )
    await Promise.all(stale.map(sub => refreshSubscription(sub, registry, now())))
  }

  /**
   * Queues a subscriber's matching events, unless (live) they would not fit: then it falls behind.
   * Returns the bytes queued.
   */
  function queue(
    sub: Subscription,
    events: ReturnType<typeof feedEventOf>[],
    live: boolean,
    behind: Set<Subscription>
  ): number {
    const bytes = events.reduce((sum, event) => sum + event.json.length, 0)
    if (live && bytes > 0 && sub.request.sink.queuedBytes + bytes > queueBytes) {
      behind.add(sub)
      return 0
    }
    for (const event of events) sub.request.sink.send({ type: 'change', event })
    return bytes
  }

  /**
   * Ends the stream of a subscriber whose filter could not be evaluated against a change: its own filter's timeout, or
   * the database.
   */
  function closeUnmatched(sub: Subscription, model: string, err: Error): void {
    if (err instanceof QuireError && err.code === 'QUERY_TIMEOUT') {
      sub.request.sink.close({
        code: 'QUERY_TIMEOUT',
        message:
          `Your filter took longer than the statement timeout against a ${model} change: subscribe with a ` +
          `simpler filter`
      })
      return
    }
    log(`change feed: matching ${model} changes failed: ${err.message}`)
    sub.request.sink.close({
      code: 'UNAVAILABLE',
      message: 'The feed could not evaluate a change: reconnect with Last-Event-ID to resume'
    })
  }

  /** One segment of changes (no credential change inside) to the open subscribers of `group` not behind. */
  async function deliverSegment(
    group: Subscription[],
    changes: StoredChange[],
    live: boolean,
    behind: Set<Subscription>
  ): Promise<void> {
    if (changes.length === 0) return
    // 1. Authorise: callers resolved too long ago are resolved again, and their permission filters with them.
    await refreshStale(group)
    for (const name of new Set(changes.map(change => change.model))) {
      // 2. Parse: this model's changes, and its open subscribers that have not fallen behind.
      const readers = group.filter(sub => isOpen(sub) && !behind.has(sub) && sub.request.model.name === name)
      if (readers.length === 0) continue
      const model = readers[0].request.model
      const mine = changes.filter(change => change.model === name)
      // 3. Plan and execute: each distinct permission filter matched once, by the engine itself
      // (each on its own when that statement fails).
      const matches = await matchChanges(engine, model, mine, readers)
      // 4. Shape and respond: the matching changes as feed events (hidden fields dropped), queued on
      // each sink; a subscriber whose own filter failed is closed alone.
      let slice = { subscribers: 0, bytes: 0 }
      for (const sub of readers) {
        if (slice.subscribers >= SUBSCRIBERS_PER_TURN || slice.bytes >= BYTES_PER_TURN) {
          await nextTurn()
          slice = { subscribers: 0, bytes: 0 }
        }
        slice.subscribers++
        const flags = matches.get(sub)!
        if (flags instanceof Error) closeUnmatched(sub, name, flags)
        else
          slice.bytes += queue(
            sub,
            mine.filter((_, i) => flags[i]).map(change => feedEventOf(model, change)),
            live,
            behind
          )
      }
    }
    for (const sub of group) if (!behind.has(sub)) sub.cursor = changes[changes.length - 1].pos
  }

  return {
    refreshStale,
    deliver: async (group, changes, live) => {
      const behind = new Set<Subscription>()
      let start = 0
      for (const [i, change] of changes.entries()) {
        const user = userOfChange(change)
        const touched =
          user === undefined ? [] : group.filter(sub => isOpen(sub) && !behind.has(sub) && sub.caller.userId === user)
        if (touched.length === 0) continue
        await deliverSegment(group, changes.slice(start, i), live, behind)
        await Promise.all(touched.map(sub => refreshSubscription(sub, registry, now())))
        start = i
      }
      await deliverSegment(group, changes.slice(start), live, behind)
      return [...behind]
    }
  }
}
