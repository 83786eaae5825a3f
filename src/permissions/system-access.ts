// The engine as the service itself uses it for its own records (users, their
// credentials, the setup mark): login, sessions, password resets, group changes.
// These reads and writes act for no caller, so no permission narrows them; every
// use is this one, explicit, greppable door.
import type { Doc, Engine, FindQuery, PopulateSpec } from '../storage/engine.ts'
import type { Model } from '../models/model-definition.ts'
import type { Filter } from '../query/types.ts'
import { authorized } from './authorized.ts'

export interface SystemStore {
  /** The first matching document with its password fields: for checking credentials. */
  findRaw: (model: Model, filter: Filter) => Promise<Doc | null>
  /** The first matching document (password fields removed), with links populated, as JSON text. */
  findOne: (model: Model, filter: Filter, populate?: PopulateSpec[]) => Promise<string | null>
  count: (model: Model, filter: Filter) => Promise<number>
  updateOne: (model: Model, filter: Filter, set: Doc) => Promise<string | null>
  insert: (model: Model, doc: Doc) => Promise<string>
}

/** A populate spec of the service's own (its filter is not narrowed for any caller). */
export function systemPopulate(spec: Omit<PopulateSpec, 'filter'> & { filter: Filter }): PopulateSpec {
  return { ...spec, filter: authorized(spec.filter) }
}

export function systemStore(engine: Engine): SystemStore {
  return {
    findRaw: (model, filter) => engine.findRaw(model, authorized(filter)),
    findOne: (model, filter, populate = []) => {
      const query: FindQuery = { filter: authorized(filter), sort: [], limit: 1, skip: 0, count: false, populate }
      return engine.findOne(model, authorized(query))
    },
    count: (model, filter) => engine.count(model, authorized(filter)),
    updateOne: (model, filter, set) => engine.updateOne(model, authorized(filter), set),
    insert: (model, doc) => engine.insert(model, doc)
  }
}
