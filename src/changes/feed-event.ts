// What a subscriber receives of a change: the event name (create, update, delete),
// the kind of change (op), who and when, and the document as a reader sees it
// (hidden fields removed). Built once per change and shared by every subscriber.
import type { ChangeOp, StoredChange } from '../storage/change-log.ts'
import type { Model } from '../models/model-definition.ts'
import { hiddenFields } from '../permissions/field-policy.ts'

type FeedEventName = 'create' | 'update' | 'delete'

const EVENT_OF_OP: Record<ChangeOp, FeedEventName> = {
  create: 'create',
  update: 'update',
  restore: 'update',
  soft_delete: 'delete',
  permanent_delete: 'delete'
}

export interface FeedEvent {
  pos: string
  name: FeedEventName
  op: ChangeOp
  /** The event as JSON: {id, event, op, model, _id, at, user_id, data}. */
  json: string
}

const built = new WeakMap<StoredChange, FeedEvent>()

/** The document without the fields no reader may see (null stays null). */
function readable(model: Model, doc: StoredChange['doc']): StoredChange['doc'] {
  const hidden = hiddenFields(model)
  if (doc === null || !hidden.some(field => field in doc)) return doc
  return Object.fromEntries(Object.entries(doc).filter(([field]) => !hidden.includes(field)))
}

export function feedEventOf(model: Model, change: StoredChange): FeedEvent {
  let event = built.get(change)
  if (!event) {
    const name = EVENT_OF_OP[change.op]
    const json = JSON.stringify({
      id: change.pos,
      event: name,
      op: change.op,
      model: change.model,
      _id: change.docId,
      at: change.at,
      user_id: change.actor,
      data: readable(model, change.doc)
    })
    built.set(change, (event = { pos: change.pos, name, op: change.op, json }))
  }
  return event
}

/** The document a subscriber's filter is matched against: a soft delete as it was just before (live). */
export function matchedDocument(change: StoredChange): StoredChange['doc'] {
  return change.op === 'soft_delete' && change.doc ? { ...change.doc, _deleted: false } : change.doc
}
