// Decides which of a model's changes reach which subscribers: every distinct permission
// filter is evaluated once, by the engine itself (Engine.matchDocuments), against the
// documents as they are after each change (a soft delete: as it was just before), cut down
// to the fields the filters name: a filter reads nothing else, and the rest need not travel.
// When that one statement fails (one subscriber's filter ran out of time against a change, say),
// each filter is evaluated on its own, so that only the subscribers whose filter fails lose
// their stream: one subscriber's filter no longer decides for all.
import type { Engine } from '../storage/engine.ts'
import type { StoredChange } from '../storage/change-log.ts'
import type { Doc } from '../storage/engine.ts'
import type { Model } from '../models/model-definition.ts'
import type { Filter } from '../query/types.ts'
import { mayLearnOfUnknown } from '../permissions/authorize/authorize-feed.ts'
import { matchedDocument } from './feed-event.ts'
import type { Subscription } from './subscription.ts'

/** The top-level fields a (checked) filter's conditions name, through $and, $or and $nor. */
function namedFields(filter: Filter, into: Set<string>): Set<string> {
  for (const [key, value] of Object.entries(filter)) {
    if (!key.startsWith('$')) into.add(key.split('.')[0])
    else if (Array.isArray(value)) for (const inner of value) namedFields(inner as Filter, into)
  }
  return into
}

/** The documents with only the given fields (and `_id`). */
function keepFields(docs: Doc[], fields: Set<string>): Doc[] {
  const kept = [...fields.add('_id')]
  return docs.map(doc => Object.fromEntries(kept.filter(field => field in doc).map(field => [field, doc[field]])))
}

/**
 * Each filter's flags per document: all in one statement, else one statement per filter (an Error where a filter
 * failed).
 */
async function matchEach(
  engine: Engine,
  model: Model,
  docs: Doc[],
  filters: Subscription['filter'][]
): Promise<Array<boolean[] | Error>> {
  if (docs.length === 0) return filters.map(() => [])
  try {
    return await engine.matchDocuments(model, docs, filters)
  } catch (err) {
    if (filters.length === 1) return [err as Error]
    return await Promise.all(
      filters.map(
        async filter =>
          await engine.matchDocuments(model, docs, [filter]).then(
            ([flags]) => flags,
            (failed: Error) => failed
          )
      )
    )
  }
}

/** For each subscriber, one flag per change (whether it receives it), or the Error its filter failed with. */
export async function matchChanges(
  engine: Engine,
  model: Model,
  changes: StoredChange[],
  subs: Subscription[]
): Promise<Map<Subscription, boolean[] | Error>> {
  const known = changes.flatMap((change, i) => (change.doc === null ? [] : [i]))
  const groups = new Map<string, Subscription[]>()
  for (const sub of subs) {
    const key = JSON.stringify(sub.filter)
    groups.set(key, [...(groups.get(key) ?? []), sub])
  }
  const filters = [...groups.values()].map(members => members[0].filter)
  const fields = filters.reduce((named, filter) => namedFields(filter, named), new Set<string>())
  const docs = keepFields(
    known.map(i => matchedDocument(changes[i])!),
    fields
  )
  const matched = await matchEach(engine, model, docs, filters)
  const result = new Map<Subscription, boolean[] | Error>()
  ;[...groups.values()].forEach((members, f) => {
    const own = matched[f]
    for (const sub of members) {
      if (own instanceof Error) {
        result.set(sub, own)
        continue
      }
      const flags = changes.map(
        change => change.doc === null && mayLearnOfUnknown(sub.caller, model, sub.request.filter, change.docId)
      )
      known.forEach((i, d) => {
        flags[i] = own[d]
      })
      result.set(sub, flags)
    }
  })
  return result
}
