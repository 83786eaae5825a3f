// The transport side of a subscription (an SSE response, a WebSocket subscription):
// what the change hub sends into it, and why a subscription ends.

import type { FeedEvent } from '../feed-event.ts'

export type FeedMessage =
  /** The subscription starts after `pos`: every later change that matches follows. */
  | { type: 'ready'; pos: string }
  /** The position asked for is beyond the retention window: changes were lost; it goes on after `pos`. */
  | { type: 'reset'; pos: string; reason: string }
  | { type: 'change'; event: FeedEvent }
  /** Every change up to `pos` has been considered (keeps a quiet subscriber's resume position fresh). */
  | { type: 'position'; pos: string }

type CloseCode =
  | 'SLOW_CONSUMER'
  | 'CREDENTIALS_REVOKED'
  | 'FORBIDDEN'
  | 'SHUTDOWN'
  | 'UNAVAILABLE'
  | 'UNSUBSCRIBED'
  | 'QUERY_TIMEOUT'

export interface CloseReason {
  code: CloseCode
  message: string
}

export interface FeedSink {
  /** Queues a message; a sink whose queue is full closes itself (SLOW_CONSUMER). */
  send: (message: FeedMessage) => void
  /** Ends the subscription, telling the client why; without a reason when the client went away. */
  close: (reason?: CloseReason) => void
  /** Settles once the queue is empty (or the sink closed). */
  drained: () => Promise<void>
  readonly closed: boolean
  /** What waits in its queue (bytes, about). */
  readonly queuedBytes: number
  /** Called once when the sink closes, for whatever reason (set by the hub); at once when it already has. */
  onClose: (listener: () => void) => void
}
