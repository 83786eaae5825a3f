// One subscriber of the change hub: its model, filter and transport, and the caller it
// acts as, re-resolved from its credential whenever that may have changed (so a revoked
// key or a logged-out token ends it) and turned into its current permission filter.
import type { Caller } from '../auth/caller.ts'
import type { StoredChange } from '../storage/change-log.ts'
import type { Filter } from '../query/types.ts'
import type { Model } from '../models/model-definition.ts'
import type { ModelRegistry } from '../models/model-registry.ts'
import type { Authorized } from '../permissions/authorized.ts'
import { authorizeFeed } from '../permissions/authorize/authorize-feed.ts'
import { QuireError } from '../errors.ts'
import type { FeedSink } from './transports/feed-sink.ts'

/** The caller a subscriber came with, and how to ask again who its credential stands for now. */
export interface CallerSource {
  caller: Caller
  /** The credential's current caller; throws (AUTH_FAILED) when it was revoked or expired. */
  resolve: () => Promise<Caller>
}

export interface SubscribeRequest {
  model: Model
  /** The client's own conditions (URL filters, a WebSocket subscription's), not yet checked. */
  filter: Filter
  showDeleted: boolean
  /** Resume after this position (Last-Event-ID); undefined: from now on. */
  after?: string
  callers: CallerSource
  /** The client's address (per-client stream limit). */
  client: string
  sink: FeedSink
}

/** A subscriber reading the change log at its own pace, and the live changes that wait meanwhile. */
export interface Behind {
  buffer: StoredChange[]
  /** What the buffer holds (bytes, about). */
  bytes: number
  /** The buffer overflowed and was dropped: its changes must be read from the log. */
  dropped: boolean
}

export const startBehind = (): Behind => ({ buffer: [], bytes: 0, dropped: false })

export interface Subscription {
  readonly request: SubscribeRequest
  caller: Caller
  /** What a change's document must match to reach it (its read scope and filter). */
  filter: Authorized<Filter>
  /** When `caller` was last resolved (ms). */
  checkedAt: number
  /** The last position considered for it. */
  cursor: string
  /** Set while it reads the change log (its backlog, or after falling behind): it is not live. */
  behind: Behind | undefined
}

export function createSubscription(request: SubscribeRequest, registry: ModelRegistry, now: number): Subscription {
  const { caller } = request.callers
  return {
    request,
    caller,
    filter: authorizeFeed(caller, registry, request.model, request.filter, request.showDeleted),
    checkedAt: now,
    cursor: '',
    behind: startBehind()
  }
}

/** Resolves the subscriber's caller again and its filter with it; closes it when either is refused. */
export async function refreshSubscription(sub: Subscription, registry: ModelRegistry, now: number): Promise<void> {
  const { request } = sub
  try {
    sub.caller = await request.callers.resolve()
    sub.checkedAt = now
  } catch (err) {
    const reason = err instanceof QuireError ? (err.reason ?? err.message) : 'the credential could not be checked'
    request.sink.close({ code: 'CREDENTIALS_REVOKED', message: `The credential no longer holds: ${reason}` })
    return
  }
  try {
    sub.filter = authorizeFeed(sub.caller, registry, request.model, request.filter, request.showDeleted)
  } catch (err) {
    request.sink.close({
      code: 'FORBIDDEN',
      message: err instanceof QuireError ? err.message : 'No longer allowed to read'
    })
  }
}
