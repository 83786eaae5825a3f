// Engines accept only inputs src/permissions marked Authorized. Suites that test an
// engine's own semantics (the contract suite, plans, caches) build their filters and
// queries themselves: this adapter marks them, so those suites speak plain filters.
// Aggregations go through the real authorization, as an admin.
import type { BulkOperation, DeletePlan, Engine, FindQuery } from '../../src/storage/engine.ts'
import type { Model } from '../../src/models/model-definition.ts'
import { ModelRegistry } from '../../src/models/model-registry.ts'
import type { Filter } from '../../src/query/types.ts'
import { authorized } from '../../src/permissions/authorized.ts'
import { authorizePipeline } from '../../src/permissions/authorize/authorize-pipeline.ts'

export type PlainQuery = Omit<FindQuery, 'filter'> & { filter: Filter }
type PlainBulkOperation = BulkOperation extends infer O
  ? O extends { filter: unknown }
    ? Omit<O, 'filter'> & { filter: Filter }
    : O
  : never

export interface UncheckedEngine
  extends Omit<
    Engine,
    | 'findOne'
    | 'findRaw'
    | 'find'
    | 'count'
    | 'planCount'
    | 'updateOne'
    | 'bulkWrite'
    | 'aggregate'
    | 'deleteOne'
    | 'streamFind'
    | 'matchDocuments'
  > {
  findOne: (
    model: Model,
    filter: Filter,
    options?: Pick<FindQuery, 'fields'> & Partial<Pick<FindQuery, 'populate'>>
  ) => Promise<string | null>
  findRaw: Engine['findRaw'] extends (m: Model, f: never) => infer R ? (model: Model, filter: Filter) => R : never
  find: (model: Model, query: PlainQuery) => ReturnType<Engine['find']>
  count: (model: Model, filter: Filter) => Promise<number>
  planCount: (model: Model, filter: Filter) => Promise<number>
  updateOne: (model: Model, filter: Filter, set: Record<string, unknown>) => Promise<string | null>
  bulkWrite: (model: Model, operations: PlainBulkOperation[]) => ReturnType<Engine['bulkWrite']>
  matchDocuments: (model: Model, docs: Array<Record<string, unknown>>, filters: Filter[]) => Promise<boolean[][]>
  /** Runs `pipeline` as an admin would, over `models` (the ones its $lookup stages may name). */
  aggregate: (model: Model, pipeline: unknown[]) => Promise<string>
  deleteOne: (model: Model, plan: DeletePlan) => ReturnType<Engine['deleteOne']>
  streamFind: (
    model: Model,
    query: PlainQuery,
    batchSize: number,
    onBatch: (docs: string[]) => Promise<void>
  ) => Promise<number>
}

const ADMIN = { admin: true, groups: [] }

export function uncheckedEngine(engine: Engine, models: Model[] = []): UncheckedEngine {
  const registry = new ModelRegistry(new Map(models.map(m => [m.name, m])))
  return {
    ...engine,
    findOne: (model, filter, options = {}) =>
      engine.findOne(
        model,
        authorized({
          filter: authorized(filter),
          sort: [],
          fields: options.fields,
          limit: 1,
          skip: 0,
          count: false,
          populate: options.populate ?? []
        })
      ),
    findRaw: (model, filter) => engine.findRaw(model, authorized(filter)),
    find: (model, query) => engine.find(model, authorized({ ...query, filter: authorized(query.filter) })),
    count: (model, filter) => engine.count(model, authorized(filter)),
    planCount: (model, filter) => engine.planCount(model, authorized(filter)),
    updateOne: (model, filter, set) => engine.updateOne(model, authorized(filter), set),
    bulkWrite: (model, operations) =>
      engine.bulkWrite(
        model,
        operations.map(op => ('filter' in op ? { ...op, filter: authorized(op.filter) } : op)) as BulkOperation[]
      ),
    matchDocuments: (model, docs, filters) =>
      engine.matchDocuments(
        model,
        docs,
        filters.map(f => authorized(f))
      ),
    aggregate: (model, pipeline) => engine.aggregate(model, authorizePipeline(ADMIN, registry, model, pipeline, false)),
    deleteOne: (model, plan) => engine.deleteOne(model, authorized(plan)),
    streamFind: (model, query, batchSize, onBatch) =>
      engine.streamFind(model, authorized({ ...query, filter: authorized(query.filter) }), batchSize, onBatch)
  }
}
