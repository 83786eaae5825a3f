// Decides which of a model's changes reach which subscribers: every distinct permission
// filter is evaluated once, by the engine itself (Engine.matchDocuments), against the
// documents as they are after each change (a soft delete: as it was just before).
import type { Engine } from '../engines/engine.ts'
import type { StoredChange } from '../engines/change-log.ts'
import type { Model } from '../models/model-definition.ts'
import { mayLearnOfUnknown } from '../permissions/authorize-feed.ts'
import { matchedDocument } from './feed-event.ts'
import type { Subscription } from './subscription.ts'

/** For each subscriber, one flag per change: whether it receives it. */
export async function matchChanges (engine: Engine, model: Model, changes: StoredChange[], subs: Subscription[]): Promise<Map<Subscription, boolean[]>> {
  const known = changes.flatMap((change, i) => change.doc === null ? [] : [i])
  const groups = new Map<string, Subscription[]>()
  for (const sub of subs) {
    const key = JSON.stringify(sub.filter)
    groups.set(key, [...groups.get(key) ?? [], sub])
  }
  const filters = [...groups.values()].map(members => members[0].filter)
  const docs = known.map(i => matchedDocument(changes[i])!)
  const matched = docs.length === 0 ? filters.map(() => []) : await engine.matchDocuments(model, docs, filters)
  const result = new Map<Subscription, boolean[]>()
  ;[...groups.values()].forEach((members, f) => {
    for (const sub of members) {
      const flags = changes.map(change => change.doc === null && mayLearnOfUnknown(sub.caller, model, sub.request.filter, change.docId))
      known.forEach((i, d) => { flags[i] = matched[f][d] })
      result.set(sub, flags)
    }
  })
  return result
}
