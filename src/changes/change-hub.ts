// The change hub of one process: while anyone subscribes it follows the engine's change
// log (every process sees every change) and hands each change, in order, to the
// subscribers allowed to see it, decided per change with each subscriber's current
// caller (deliver-changes.ts). Subscribers that resume, or fall behind, read the log at
// their own pace (catch-up.ts) and then go live again.
import type { Engine } from '../storage/engine.ts'
import type { StoredChange } from '../storage/change-log.ts'
import type { ModelRegistry } from '../models/model-registry.ts'
import { QuireError } from '../errors.ts'
import { outsideRequestScope } from '../runtime/request-scope.ts'
import { createDelivery, isOpen } from './deliver-changes.ts'
import { bufferChanges, catchUp, type CatchUpOptions } from './catch-up.ts'
import { createSubscription, startBehind, type SubscribeRequest, type Subscription } from './subscription.ts'

export interface ChangeHubOptions {
  engine: Engine
  registry: ModelRegistry
  maxStreams: number
  maxStreamsPerClient: number
  /** What may wait for one subscriber (CHANGES_QUEUE_BYTES, about). */
  queueBytes: number
  /** A subscriber that accepts nothing this long while changes wait for it is closed. */
  stallMs: number
  log: (msg: string) => void
  /** A caller resolved this long ago is resolved again before its next change (expiry); half of it is the heartbeat. */
  recheckMs?: number
  now?: () => number
}

export interface ChangeHub {
  /** Starts a subscription; throws (4xx, 503) before anything was sent when it cannot. */
  subscribe: (request: SubscribeRequest) => Promise<void>
  /**
   * Open subscriptions, and what waits for them in memory: queues and buffers (bytes, about), in all and for the one
   * holding most.
   */
  stats: () => { streams: number; queuedBytes: number; largestQueuedBytes: number }
  /** Ends every subscription (SHUTDOWN) and stops following. */
  close: () => Promise<void>
}

const STOP_FOLLOWING_AFTER_MS = 10_000

export function createChangeHub(options: ChangeHubOptions): ChangeHub {
  const { engine, registry, log } = options
  const recheckMs = options.recheckMs ?? 60_000
  const now = options.now ?? Date.now
  const delivery = createDelivery({ engine, registry, queueBytes: options.queueBytes, recheckMs, now, log })
  const catchUpOptions: CatchUpOptions = {
    log: engine.changes,
    delivery,
    queueBytes: options.queueBytes,
    stallMs: options.stallMs
  }
  const subs = new Set<Subscription>()
  let following: Promise<() => Promise<void>> | undefined
  let stopTimer: NodeJS.Timeout | undefined
  let serial: Promise<void> = Promise.resolve()
  const heartbeat = setInterval(
    () => {
      void serialize(beat)
    },
    Math.max(1000, Math.floor(recheckMs / 2))
  )
  heartbeat.unref()

  function serialize(task: () => Promise<void>): Promise<void> {
    const run = serial.then(task)
    serial = run.catch(err => log(`change feed: ${(err as Error).message}`))
    return run
  }

  async function reset(sub: Subscription): Promise<void> {
    const after = sub.cursor
    sub.cursor = await engine.changes.head()
    sub.request.sink.send({
      type: 'reset',
      pos: sub.cursor,
      reason:
        `Changes after ${after.slice(0, 40)} are no longer kept (or it is not a position of this feed): ` +
        `read the current state again`
    })
  }

  function readLog(sub: Subscription, first: StoredChange[] | 'gone'): void {
    void catchUp(sub, first, catchUpOptions, reset).catch(err => {
      log(`change feed: reading the change log failed: ${(err as Error).message}`)
      sub.request.sink.close({
        code: 'UNAVAILABLE',
        message: 'The change log could not be read: reconnect with Last-Event-ID to resume'
      })
    })
  }

  async function deliverLive(changes: StoredChange[]): Promise<void> {
    const { compare } = engine.changes
    const current: Subscription[] = []
    const ahead: Subscription[] = []
    for (const sub of subs) {
      if (sub.behind) bufferChanges(sub, changes, options.queueBytes)
      else if (compare(sub.cursor, changes[0].pos) < 0) current.push(sub)
      else ahead.push(sub)
    }
    const behind = await delivery.deliver(current, changes, true)
    // A subscriber that read the log further than this batch (after catching up) takes only what it has not seen.
    for (const sub of ahead)
      behind.push(
        ...(await delivery.deliver(
          [sub],
          changes.filter(change => compare(change.pos, sub.cursor) > 0),
          true
        ))
      )
    for (const sub of behind) {
      sub.behind = { ...startBehind(), dropped: true }
      readLog(sub, [])
    }
  }

  async function beat(): Promise<void> {
    const live = [...subs].filter(sub => !sub.behind && isOpen(sub))
    await delivery.refreshStale(live)
    for (const sub of live) if (isOpen(sub)) sub.request.sink.send({ type: 'position', pos: sub.cursor })
  }

  async function ensureFollowing(): Promise<void> {
    clearTimeout(stopTimer)
    // Outside the subscribing request's scope: its client's leaving must not cancel what every subscriber shares.
    following ??= outsideRequestScope(() => engine.changes.follow(changes => serialize(() => deliverLive(changes))))
    try {
      await following
    } catch (err) {
      following = undefined
      throw err
    }
  }

  function remove(sub: Subscription): void {
    subs.delete(sub)
    if (subs.size > 0 || !following) return
    clearTimeout(stopTimer)
    stopTimer = setTimeout(() => {
      if (subs.size > 0 || !following) return
      const stopping = following
      following = undefined
      void stopping.then(stop => stop()).catch(() => {})
    }, STOP_FOLLOWING_AFTER_MS)
    stopTimer.unref()
  }

  function checkLimits(client: string): void {
    const mine = [...subs].filter(sub => sub.request.client === client).length
    if (subs.size >= options.maxStreams || mine >= options.maxStreamsPerClient) {
      throw new QuireError(
        'TOO_MANY_STREAMS',
        `At most ${options.maxStreams} change streams (${options.maxStreamsPerClient} per client address) ` +
          `are open at once`
      )
    }
  }

  /** Where the subscriber starts: after its Last-Event-ID (with the first page of its backlog), or now. */
  async function start(sub: Subscription, after: string | undefined): Promise<StoredChange[] | 'gone'> {
    if (after === undefined) {
      sub.cursor = await engine.changes.head()
      sub.request.sink.send({ type: 'ready', pos: sub.cursor })
      return []
    }
    sub.cursor = after
    const page = await engine.changes.readAfter(after, 200)
    if (page !== 'gone') sub.request.sink.send({ type: 'ready', pos: after })
    return page
  }

  return {
    subscribe: async request => {
      checkLimits(request.client)
      const sub = createSubscription(request, registry, now())
      // Counted, and removed when its sink closes, before anything is awaited: subscribes arriving
      // meanwhile see it in the limits, and one whose client leaves meanwhile holds nothing. It
      // starts behind, so changes arriving before its start are only buffered.
      subs.add(sub)
      request.sink.onClose(() => remove(sub))
      try {
        await ensureFollowing()
        readLog(sub, await start(sub, request.after))
      } catch (err) {
        remove(sub)
        throw err
      }
    },
    stats: () => {
      const held = [...subs].map(sub => sub.request.sink.queuedBytes + (sub.behind?.bytes ?? 0))
      return {
        streams: subs.size,
        queuedBytes: held.reduce((sum, bytes) => sum + bytes, 0),
        largestQueuedBytes: Math.max(0, ...held)
      }
    },
    close: async () => {
      clearInterval(heartbeat)
      clearTimeout(stopTimer)
      for (const sub of [...subs])
        sub.request.sink.close({
          code: 'SHUTDOWN',
          message: 'The server is shutting down: reconnect with Last-Event-ID to resume'
        })
      const stopping = following
      following = undefined
      if (stopping) await (await stopping.catch(() => async () => {}))()
    }
  }
}
