// One WebSocket connection speaking JXP's protocol over the change hub: messages
// {action, msg_id, data} with ping, auth, subscribe and unsubscribe; replies
// {action, status, client_id, msg_id, result}; events {client_id, data: {event, modelname,
// item, user_id}}. Unlike JXP: deletes arrive as `del`, unsubscribe works, a failed action
// is an error reply, permissions are checked per event, and closing leaves nothing behind.
import { randomUUID } from 'node:crypto'
import type { ModelRegistry } from '../../models/model-registry.ts'
import type { Filter } from '../../query/types.ts'
import { QuireError } from '../../errors.ts'
import { isPlainObject } from '../../validation/values.ts'
import { checkInput } from '../../validation/check-input.ts'
import { parseFeedParams, withDocumentId } from '../feed-params.ts'
import type { ChangeHub } from '../change-hub.ts'
import type { CallerSource } from '../subscription.ts'
import { createOutbox } from './outbox.ts'
import { socketSink, type SocketFrames } from './jxp-socket-sink.ts'
import { isValidId } from '../../ids.ts'

export interface JxpSocketOptions {
  hub: ChangeHub
  registry: ModelRegistry
  /** The caller of the upgrade request (its credentials, re-checked per event). */
  callers: CallerSource
  /** Checks the credentials of an `auth` message; throws when they fail. */
  authenticate: (data: Record<string, unknown>) => Promise<CallerSource>
  /** Sends one text frame; resolves when the socket can take the next. */
  send: (text: string) => Promise<void>
  /** Closes the socket (a client too slow to keep up). */
  close: (code: number, reason: string) => void
  client: string
  queueBytes: number
  /** Subscriptions one socket may hold. */
  maxSubscriptions: number
  log: (msg: string) => void
}

export interface JxpSocket {
  receive: (text: string) => Promise<void>
  /** The socket closed: every subscription ends. */
  closed: () => void
}

type Handler = (data: Record<string, unknown>) => Promise<unknown>

/** The model and document a subscribe or unsubscribe names, checked, and the subscription's key. */
function targetOf(data: Record<string, unknown>): { key: string; id?: string } {
  if (typeof data.model !== 'string') throw new QuireError('BAD_REQUEST', 'data.model must be the name of a model')
  const { id } = data
  if (id !== undefined && !isValidId(id))
    throw new QuireError('INVALID_ID', 'A document id is 24 hexadecimal characters')
  return { key: `${data.model}/${id ?? ''}`, id }
}

/** A JXP filter: {field: value} pairs in the list syntax (values as in filter[field]=value), or a MongoDB filter. */
function filterOf(filter: unknown): Record<string, string> | Filter {
  if (filter === undefined) return {}
  if (!isPlainObject(filter)) throw new QuireError('BAD_REQUEST', 'filter must be an object')
  const simple = Object.values(filter).every(v => ['string', 'number', 'boolean'].includes(typeof v))
  return simple ? Object.fromEntries(Object.entries(filter).map(([k, v]) => [`filter[${k}]`, String(v)])) : filter
}

export function createJxpSocket(options: JxpSocketOptions): JxpSocket {
  const clientId = randomUUID()
  const subscriptions = new Map<string, SocketFrames>()
  let callers = options.callers
  const outbox = createOutbox<string>({
    maxBytes: options.queueBytes,
    sizeOf: text => text.length,
    write: options.send,
    onOverflow: () => options.close(1013, 'SLOW_CONSUMER: the client read too slowly'),
    onError: () => {}
  })

  /** Subscriptions being set up, by key: a repeat waits for the first one's outcome. */
  const starting = new Map<string, Promise<void>>()

  async function subscribe(data: Record<string, unknown>): Promise<string> {
    const { key, id } = targetOf(data)
    const model = options.registry.get(data.model as string)
    while (starting.has(key)) await starting.get(key)!.catch(() => {})
    if (subscriptions.has(key)) return 'Already subscribed'
    if (subscriptions.size >= options.maxSubscriptions)
      throw new QuireError('TOO_MANY_STREAMS', `At most ${options.maxSubscriptions} subscriptions per connection`)
    const given = filterOf(data.filter)
    const simple = Object.keys(given).every(k => k.startsWith('filter['))
    const filter = simple ? parseFeedParams(model, given as Record<string, string>).filter : (given as Filter)
    const sink = socketSink({ clientId, modelname: model.name, outbox, onClose: () => subscriptions.delete(key) })
    subscriptions.set(key, sink)
    const started = options.hub.subscribe({
      model,
      filter: id === undefined ? filter : withDocumentId(filter, id),
      showDeleted: data.showDeleted === true,
      after: typeof data.after === 'string' ? data.after : undefined,
      callers,
      client: options.client,
      sink
    })
    starting.set(key, started)
    try {
      await started
    } catch (err) {
      subscriptions.delete(key)
      throw err
    } finally {
      starting.delete(key)
    }
    return `Subscribed to ${key.replace(/\/$/, '')}`
  }

  const handlers: Record<string, Handler> = {
    ping: async () => 'pong!',
    auth: async data => {
      callers = await options.authenticate(data).catch(() => {
        throw new QuireError('AUTH_FAILED', 'Unable to authenticate')
      })
      return 'Authed'
    },
    subscribe,
    unsubscribe: async data => {
      const { key } = targetOf(data)
      const sink = subscriptions.get(key)
      if (!sink) throw new QuireError('NOT_FOUND', `Not subscribed to ${key.replace(/\/$/, '')}`)
      sink.close({ code: 'UNSUBSCRIBED', message: 'Unsubscribed' })
      return `Unsubscribed from ${key.replace(/\/$/, '')}`
    }
  }

  function reply(message: unknown): void {
    outbox.push(JSON.stringify(message))
  }

  return {
    receive: async text => {
      let message: unknown
      try {
        message = JSON.parse(text)
      } catch {
        return reply({ status: 'error', code: 'BAD_REQUEST', message: 'Unable to parse message' })
      }
      const { action, msg_id: msgId, data = {} } = (isPlainObject(message) ? message : {}) as Record<string, unknown>
      try {
        checkInput(message, 'message')
        if (typeof action !== 'string' || !Object.hasOwn(handlers, action))
          throw new QuireError(
            'BAD_REQUEST',
            action === undefined ? 'missing action' : `action ${String(action).slice(0, 40)} not implemented`
          )
        if (msgId === undefined) throw new QuireError('BAD_REQUEST', 'missing msg_id')
        if (!isPlainObject(data)) throw new QuireError('BAD_REQUEST', 'data must be an object')
        reply({ action, status: 'okay', client_id: clientId, msg_id: msgId, result: await handlers[action](data) })
      } catch (err) {
        if (!(err instanceof QuireError)) options.log(`websocket: ${String(action)} failed: ${(err as Error).message}`)
        const known = err instanceof QuireError ? err : new QuireError('INTERNAL')
        reply({ action, status: 'error', code: known.code, message: known.message, msg_id: msgId })
      }
    },
    closed: () => {
      for (const sink of [...subscriptions.values()]) sink.close()
      outbox.stop()
    }
  }
}
