// A subscriber that is behind (it resumed with Last-Event-ID, or live changes did not fit
// its queue) reads the change log at its own pace: in pieces of about half its queue, each
// once the previous one was written. Live changes meant for it wait in a buffer bounded
// by the same size (when it fills, it is dropped: those changes are in the log). A client
// that accepts nothing for `stallMs` is closed (SLOW_CONSUMER).
import type { ChangeLog, StoredChange } from '../storage/change-log.ts'
import { feedEventOf } from './feed-event.ts'
import { isOpen, userOfChange, type Delivery } from './deliver-changes.ts'
import type { Subscription } from './subscription.ts'

export interface CatchUpOptions {
  log: ChangeLog
  delivery: Delivery
  queueBytes: number
  stallMs: number
}

const PAGE = 200

/** What a change weighs for a subscriber's buffer: its event's text when the subscriber may receive it. */
function weight(sub: Subscription, change: StoredChange): number {
  const { model } = sub.request
  return change.model === model.name
    ? feedEventOf(model, change).json.length
    : userOfChange(change) === undefined
      ? 0
      : 100
}

/** Keeps live changes for a subscriber that is behind; past its bound the buffer is dropped (the log has them). */
export function bufferChanges(sub: Subscription, changes: StoredChange[], queueBytes: number): void {
  const behind = sub.behind!
  for (const change of changes) {
    const bytes = weight(sub, change)
    if (bytes === 0 && userOfChange(change) === undefined) continue
    behind.buffer.push(change)
    behind.bytes += bytes
  }
  if (behind.bytes > queueBytes) {
    behind.buffer = []
    behind.bytes = 0
    behind.dropped = true
  }
}

async function waitForRoom(sub: Subscription, stallMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const stalled = new Promise<'stalled'>(resolve => {
    timer = setTimeout(() => resolve('stalled'), stallMs)
  })
  const outcome = await Promise.race([sub.request.sink.drained(), stalled])
  clearTimeout(timer)
  if (outcome !== 'stalled') return true
  sub.request.sink.close({
    code: 'SLOW_CONSUMER',
    message: `The client read nothing for ${Math.round(stallMs / 1000)} s: reconnect with Last-Event-ID to resume`
  })
  return false
}

/** Sends changes to one subscriber in pieces of about half its queue, each once there is room. */
async function deliverPaced(sub: Subscription, changes: StoredChange[], options: CatchUpOptions): Promise<void> {
  let piece: StoredChange[] = []
  let bytes = 0
  for (const [i, change] of changes.entries()) {
    piece.push(change)
    bytes += weight(sub, change)
    if (bytes < options.queueBytes / 2 && i < changes.length - 1) continue
    if (!(await waitForRoom(sub, options.stallMs))) return
    await options.delivery.deliver([sub], piece, false)
    piece = []
    bytes = 0
  }
}

/** Sends the subscriber what it missed after its cursor (pruned: `onGone`), then what waited, then it is live again. */
export async function catchUp(
  sub: Subscription,
  first: StoredChange[] | 'gone',
  options: CatchUpOptions,
  onGone: (sub: Subscription) => Promise<void>
): Promise<void> {
  const behind = sub.behind!
  let page = first
  while (isOpen(sub)) {
    if (page === 'gone') {
      await onGone(sub)
      page = []
    }
    if (page.length > 0 || behind.dropped) {
      behind.dropped = false
      await deliverPaced(sub, page, options)
      page = await options.log.readAfter(sub.cursor, PAGE)
      continue
    }
    const waiting = behind.buffer.filter(change => options.log.compare(change.pos, sub.cursor) > 0)
    behind.buffer = []
    behind.bytes = 0
    if (waiting.length === 0) {
      sub.behind = undefined
      return
    }
    await deliverPaced(sub, waiting, options)
  }
}
