// A subscription on a JXP WebSocket: its events as JXP sends them
// ({client_id, data: {event: post|put|del, modelname, item, user_id}}, plus op, id and at),
// and `ready`, `reset` and `closed` events of its own, queued on the connection's outbox.
import type { ChangeOp } from '../../storage/change-log.ts'
import type { FeedEvent } from '../feed-event.ts'
import type { CloseReason, FeedMessage, FeedSink } from './feed-sink.ts'
import type { Outbox } from './outbox.ts'

export type SocketFrames = FeedSink

const JXP_EVENT: Record<ChangeOp, string> = {
  create: 'post',
  update: 'put',
  restore: 'put',
  soft_delete: 'del',
  permanent_delete: 'del'
}

const jxpData = new WeakMap<FeedEvent, string>()

/** The `data` of a change's JXP event as JSON, built once per change. */
function dataOf(event: FeedEvent): string {
  let json = jxpData.get(event)
  if (json === undefined) {
    const change = JSON.parse(event.json) as {
      id: string
      op: ChangeOp
      model: string
      at: string
      user_id: string | null
      data: unknown
    }
    json = JSON.stringify({
      event: JXP_EVENT[change.op],
      modelname: change.model,
      item: change.data,
      user_id: change.user_id,
      op: change.op,
      id: change.id,
      at: change.at
    })
    jxpData.set(event, json)
  }
  return json
}

export interface SocketSinkOptions {
  clientId: string
  modelname: string
  outbox: Outbox<string>
  /** Called once when the subscription ends. */
  onClose: () => void
}

export function socketSink({ clientId, modelname, outbox, onClose }: SocketSinkOptions): SocketFrames {
  const listeners: Array<() => void> = [onClose]
  let closed = false
  const push = (data: string): void => {
    outbox.push(`{"client_id":${JSON.stringify(clientId)},"data":${data}}`)
  }

  function frame(message: FeedMessage): string | undefined {
    switch (message.type) {
      case 'change':
        return dataOf(message.event)
      case 'ready':
        return JSON.stringify({ event: 'ready', modelname, id: message.pos })
      case 'reset':
        return JSON.stringify({ event: 'reset', modelname, id: message.pos, reason: message.reason })
      case 'position':
        return undefined
    }
  }

  return {
    send: message => {
      const data = closed ? undefined : frame(message)
      if (data !== undefined) push(data)
    },
    close: (reason?: CloseReason) => {
      if (closed) return
      closed = true
      if (reason && reason.code !== 'UNSUBSCRIBED')
        push(JSON.stringify({ event: 'closed', modelname, code: reason.code, message: reason.message }))
      for (const listener of listeners) listener()
    },
    drained: () => outbox.drained(),
    get closed() {
      return closed
    },
    get queuedBytes() {
      return outbox.queuedBytes
    },
    onClose: listener => {
      if (closed) listener()
      else listeners.push(listener)
    }
  }
}
