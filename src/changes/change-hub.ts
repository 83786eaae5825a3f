// The change hub of one process: while anyone subscribes it follows the engine's change
// log (every process sees every change) and hands each change, in order, to the
// subscribers allowed to see it, decided per change with each subscriber's current
// caller. A subscriber that resumes first reads its backlog from the log, while the
// live changes meant for it wait in its buffer.
import type { Engine } from '../engines/engine.ts'
import type { StoredChange } from '../engines/change-log.ts'
import type { ModelRegistry } from '../models/model-registry.ts'
import { USER_MODEL } from '../auth/user-model.ts'
import { CREDENTIAL_MODEL } from '../auth/credential-model.ts'
import { QuireError } from '../errors.ts'
import { feedEventOf } from './feed-event.ts'
import { matchChanges } from './match-changes.ts'
import { createSubscription, refreshSubscription, type SubscribeRequest, type Subscription } from './subscription.ts'

export interface ChangeHubOptions {
  engine: Engine
  registry: ModelRegistry
  maxStreams: number
  maxStreamsPerClient: number
  log: (msg: string) => void
  /** A caller resolved this long ago is resolved again before its next change (expiry); also the heartbeat. */
  recheckMs?: number
  now?: () => number
}

export interface ChangeHub {
  /** Starts a subscription; throws (4xx, 503) before anything was sent when it cannot. */
  subscribe: (request: SubscribeRequest) => Promise<void>
  /** Open subscriptions. */
  readonly size: number
  /** Ends every subscription (SHUTDOWN) and stops following. */
  close: () => Promise<void>
}

const PAGE = 200
const MAX_BUFFERED = 10_000
const STOP_FOLLOWING_AFTER_MS = 10_000

/** The user whose credentials or record a change touched, when it did. */
function userOfChange (change: StoredChange): string | undefined {
  if (change.model === USER_MODEL.name) return change.docId
  if (change.model === CREDENTIAL_MODEL.name && typeof change.doc?.user_id === 'string') return change.doc.user_id
  return undefined
}

export function createChangeHub (options: ChangeHubOptions): ChangeHub {
  const { engine, registry, log } = options
  const recheckMs = options.recheckMs ?? 60_000
  const now = options.now ?? Date.now
  const subs = new Set<Subscription>()
  let following: Promise<() => Promise<void>> | undefined
  let stopTimer: NodeJS.Timeout | undefined
  let serial: Promise<void> = Promise.resolve()
  const heartbeat = setInterval(() => { void serialize(beat) }, Math.max(1000, Math.floor(recheckMs / 2)))
  heartbeat.unref()

  function serialize (task: () => Promise<void>): Promise<void> {
    const run = serial.then(task)
    serial = run.catch(err => log(`change feed: ${(err as Error).message}`))
    return run
  }

  const isOpen = (sub: Subscription): boolean => !sub.request.sink.closed

  async function refreshStale (group: Subscription[]): Promise<void> {
    const stale = group.filter(sub => sub.caller.userId !== undefined && now() - sub.checkedAt >= recheckMs)
    await Promise.all(stale.map(sub => refreshSubscription(sub, registry, now())))
  }

  /** Sends one segment of changes (no credential change inside) to the open subscribers of `group`. */
  async function deliverSegment (group: Subscription[], changes: StoredChange[]): Promise<void> {
    if (changes.length === 0) return
    await refreshStale(group.filter(isOpen))
    for (const name of new Set(changes.map(change => change.model))) {
      const readers = group.filter(sub => isOpen(sub) && sub.request.model.name === name)
      if (readers.length === 0) continue
      const model = readers[0].request.model
      const mine = changes.filter(change => change.model === name)
      try {
        const matches = await matchChanges(engine, model, mine, readers)
        for (const sub of readers) matches.get(sub)!.forEach((yes, i) => { if (yes) sub.request.sink.send({ type: 'change', event: feedEventOf(model, mine[i]) }) })
      } catch (err) {
        log(`change feed: matching ${name} changes failed: ${(err as Error).message}`)
        for (const sub of readers) sub.request.sink.close({ code: 'UNAVAILABLE', message: 'The feed could not evaluate a change: reconnect with Last-Event-ID to resume' })
      }
    }
    for (const sub of group) sub.cursor = changes[changes.length - 1].pos
  }

  /** Sends `changes` to `group`, resolving a subscriber's caller again right where its credentials changed. */
  async function deliver (group: Subscription[], changes: StoredChange[]): Promise<void> {
    let start = 0
    for (const [i, change] of changes.entries()) {
      const user = userOfChange(change)
      const touched = user === undefined ? [] : group.filter(sub => isOpen(sub) && sub.caller.userId === user)
      if (touched.length === 0) continue
      await deliverSegment(group, changes.slice(start, i))
      await Promise.all(touched.map(sub => refreshSubscription(sub, registry, now())))
      start = i
    }
    await deliverSegment(group, changes.slice(start))
  }

  async function deliverLive (changes: StoredChange[]): Promise<void> {
    const current: Subscription[] = []
    for (const sub of subs) {
      if (sub.buffer) {
        sub.buffer.push(...changes)
        if (sub.buffer.length > MAX_BUFFERED) sub.request.sink.close({ code: 'SLOW_CONSUMER', message: 'Too many changes arrived while the backlog was read: reconnect to resume' })
      } else if (engine.changes.compare(sub.cursor, changes[0].pos) < 0) current.push(sub)
      else await deliver([sub], changes.filter(change => engine.changes.compare(change.pos, sub.cursor) > 0))
    }
    await deliver(current, changes)
  }

  async function beat (): Promise<void> {
    const live = [...subs].filter(sub => !sub.buffer && isOpen(sub))
    await refreshStale(live)
    for (const sub of live) sub.request.sink.send({ type: 'position', pos: sub.cursor })
  }

  async function ensureFollowing (): Promise<void> {
    clearTimeout(stopTimer)
    following ??= engine.changes.follow(changes => serialize(() => deliverLive(changes)))
    try {
      await following
    } catch (err) {
      following = undefined
      throw err
    }
  }

  function remove (sub: Subscription): void {
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

  function checkLimits (client: string): void {
    const mine = [...subs].filter(sub => sub.request.client === client).length
    if (subs.size >= options.maxStreams || mine >= options.maxStreamsPerClient) {
      throw new QuireError('TOO_MANY_STREAMS', `At most ${options.maxStreams} change streams (${options.maxStreamsPerClient} per client address) are open at once`)
    }
  }

  function reset (sub: Subscription, pos: string, after: string): void {
    sub.cursor = pos
    sub.request.sink.send({ type: 'reset', pos, reason: `Changes after ${after.slice(0, 40)} are no longer kept (or it is not a position of this feed): read the current state again` })
  }

  /** Where the subscriber starts: after its Last-Event-ID (with the first page of its backlog), or now. */
  async function start (sub: Subscription, after: string | undefined): Promise<StoredChange[]> {
    const { changes } = engine
    const page = after === undefined ? [] : await changes.readAfter(after, PAGE)
    if (page === 'gone') {
      reset(sub, await changes.head(), after!)
      return []
    }
    sub.cursor = after ?? await changes.head()
    sub.request.sink.send({ type: 'ready', pos: sub.cursor })
    return page
  }

  /** Sends the backlog page by page (at the client's pace), then the live changes that waited, then goes live. */
  async function catchUp (sub: Subscription, first: StoredChange[]): Promise<void> {
    const { sink } = sub.request
    let page: StoredChange[] | 'gone' = first
    while (isOpen(sub) && page.length > 0) {
      await deliver([sub], page)
      await sink.drained()
      page = await engine.changes.readAfter(sub.cursor, PAGE)
      if (page === 'gone') {
        reset(sub, await engine.changes.head(), sub.cursor)
        break
      }
    }
    while (sub.buffer && sub.buffer.length > 0 && isOpen(sub)) {
      const waiting = sub.buffer.splice(0).filter(change => engine.changes.compare(change.pos, sub.cursor) > 0)
      await deliver([sub], waiting)
    }
    sub.buffer = undefined
  }

  return {
    subscribe: async (request) => {
      checkLimits(request.client)
      const sub = createSubscription(request, registry, now())
      await ensureFollowing()
      subs.add(sub)
      request.sink.onClose(() => remove(sub))
      let first: StoredChange[]
      try {
        first = await start(sub, request.after)
      } catch (err) {
        remove(sub)
        throw err
      }
      void catchUp(sub, first).catch(err => {
        log(`change feed: reading the backlog failed: ${(err as Error).message}`)
        request.sink.close({ code: 'UNAVAILABLE', message: 'The backlog could not be read: reconnect with Last-Event-ID to resume' })
      })
    },
    get size () { return subs.size },
    close: async () => {
      clearInterval(heartbeat)
      clearTimeout(stopTimer)
      for (const sub of [...subs]) sub.request.sink.close({ code: 'SHUTDOWN', message: 'The server is shutting down: reconnect with Last-Event-ID to resume' })
      const stopping = following
      following = undefined
      if (stopping) await (await stopping.catch(() => async () => {}))()
    }
  }
}
