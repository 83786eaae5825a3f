// The storage engine contract. Every engine (PostgreSQL, MongoDB)
// implements these semantics; test/storage/engine-contract.test.ts checks them on each.
import type { Model } from '../models/model-definition.ts'
import type { Filter, Sort } from '../query/types.ts'
import type { Authorized } from '../permissions/authorized.ts'
import type { UpdateTerms } from '../validation/check-update.ts'
import type { ChangeLog } from './change-log.ts'

export type { Authorized } from '../permissions/authorized.ts'
export type { UpdateTerms } from '../validation/check-update.ts'

/** A stored document: system fields plus the model's fields. */
export type Doc = Record<string, unknown>

/** Fill link fields with the linked documents (DESIGN.md section 4). */
export interface PopulateSpec {
  /** The model's link field, e.g. "link_id" or "array_link_id". */
  field: string
  /** The name the linked document(s) appear under, e.g. "link". */
  as: string
  target: Model
  many: boolean
  /** Only these fields of the linked documents (plus _id and id); all when undefined. */
  fields?: string[]
  /** Filter the linked documents must match (soft delete, read permission). */
  filter: Authorized<Filter>
}

/** A checked find: the permissions module built it (src/permissions/authorize/authorize-read.ts). */
export interface FindQuery {
  /** The complete filter, soft-delete and owner conditions included. */
  filter: Authorized<Filter>
  /** Sort order; the engine breaks ties by _id in the last key's direction, and sorts by _id when empty. */
  sort: Sort
  /** Only these fields (plus _id and id); all when undefined. */
  fields?: string[]
  limit: number
  skip: number
  /** Also return the exact number of matching documents. */
  count: boolean
  /** Full-text search text (web-search syntax) on the model's full-text index; adds `score` and sorts by it first. */
  search?: string
  populate: PopulateSpec[]
}

export interface FindResult {
  /** The page as JSON text of an array of documents (engines may pass stored text through). */
  data: string
  /** Number of documents in `data`. */
  returned: number
  /** The exact count, when asked for. */
  count?: number
}

/**
 * A write of a bulk request, already authorized and prepared by the caller: filters include the
 * soft-delete and owner conditions; documents carry their system fields; `check` validates a
 * document computed by the engine (an updated or upserted one) and throws a 400 QuireError.
 */
export type BulkOperation =
  | { kind: 'insert'; doc: Doc }
  | {
      kind: 'update'
      filter: Authorized<Filter>
      update: UpdateTerms
      many: boolean
      now: string
      upsert?: Doc
      check: (doc: Doc) => void
    }
  | { kind: 'replace'; filter: Authorized<Filter>; replacement: Doc; now: string; upsert?: Doc }
  | { kind: 'delete'; filter: Authorized<Filter>; many: boolean; now: string }

export interface BulkResult {
  nInserted: number
  nMatched: number
  nModified: number
  nUpserted: number
  nDeleted: number
  upsertedIds: string[]
}

/** A model whose documents a pipeline reads, with the rows the caller may see of it. */
export interface PipelineSource {
  model: Model
  filter: Filter
}

/** A checked pipeline with everything it may read, decided by the caller's permissions. */
export interface PipelinePlan {
  /** The stages, checked by src/validation/check-pipeline.ts (extended JSON revived). */
  stages: unknown[]
  /** Applied before the first stage: soft delete and owner conditions of the source model. */
  filter: Filter
  /** Every model a $lookup names (the source model too, when a stage names it), with its row filter. */
  lookups: ReadonlyMap<string, PipelineSource>
}

/** A model whose documents link to a deleted document, through one link field. */
export interface DeleteReferrer {
  model: Model
  field: string
  /**
   * The documents of `model` that link to the target through `field` (the target itself left
   * out): without cascade, any of them makes the delete `referenced`; with cascade, they are deleted too.
   */
  linking: Filter
  /** Of the linking documents, those the caller may not delete: any of them makes a cascade `blocked`. */
  blocked: Filter
}

/**
 * A checked delete of one document (DELETE /api/{model}/{id}), built by src/permissions/authorize/authorize-delete.ts.
 */
export interface DeletePlan {
  /** The document to delete, narrowed to what the caller may delete (deleted ones too when permanent). */
  target: Filter
  /** Remove the documents for good instead of marking them deleted (_deleted true, updatedAt, __v bumped). */
  permanent: boolean
  /** Delete the linking documents too, instead of refusing while any exists. */
  cascade: boolean
  /** The updatedAt of soft-deleted documents. */
  now: string
  referrers: DeleteReferrer[]
}

export type DeleteOutcome =
  /** `document`: the target as it was before the delete (JSON text, password fields removed). */
  | { status: 'deleted'; document: string; cascaded: Array<{ model: string; field: string; count: number }> }
  /** The target filter matched nothing: nothing was changed. */
  | { status: 'missing' }
  /** Documents of `model` link to the target through `field` and the plan does not cascade: nothing was changed. */
  | { status: 'referenced'; model: string; field: string }
  /** The cascade would delete documents of `model` the caller may not delete: nothing was changed. */
  | { status: 'blocked'; model: string; field: string }

/** Reads of one moment of the whole database (Engine.readSnapshot). */
interface Snapshot {
  /** false: the server cannot read one moment; each batch is as of its own read. */
  consistent: boolean
  exportAll: Engine['exportAll']
}

export interface Engine {
  /** "postgres" or "mongodb". */
  readonly kind: string

  /** Creates the collections and indexes the models need; idempotent, and run on every start. */
  syncModels: (models: Model[]) => Promise<void>

  /**
   * Stores a new document (system fields already set by the caller) and returns it as JSON text,
   * password fields removed. A unique index violation throws QuireError DUPLICATE_KEY.
   */
  insert: (model: Model, doc: Doc) => Promise<string>

  /** The first document of the query's page as JSON text (password fields removed), or null. */
  findOne: (model: Model, query: Authorized<FindQuery>) => Promise<string | null>

  /**
   * The first document matching `filter` as a parsed object with password fields kept: for the service's own use
   * (login).
   */
  findRaw: (model: Model, filter: Authorized<Filter>) => Promise<Doc | null>

  /** A page of documents matching the query. */
  find: (model: Model, query: Authorized<FindQuery>) => Promise<FindResult>

  /** Exact number of documents matching `filter`. */
  count: (model: Model, filter: Authorized<Filter>) => Promise<number>

  /**
   * How many documents match `filter`, as the query planner estimates it from its statistics
   * (PostgreSQL: EXPLAIN's row estimate, no scan; it may be far off for rare values). MongoDB has
   * no such estimate for a filter: there it is the exact count.
   */
  planCount: (model: Model, filter: Authorized<Filter>) => Promise<number>

  /**
   * The collection's approximate size, in O(1) (statistics), including soft-deleted documents.
   * It may lag writes of the last seconds (PostgreSQL flushes its statistics periodically).
   */
  estimateCount: (model: Model) => Promise<number>

  /**
   * Merges `set` into the top level of the one document matching `filter`, increments __v,
   * and returns the new document as JSON text (password fields removed), or null when nothing matched.
   * The caller sets updatedAt in `set`. A unique violation throws DUPLICATE_KEY.
   */
  updateOne: (model: Model, filter: Authorized<Filter>, set: Doc) => Promise<string | null>

  /**
   * Runs the operations in order in ONE transaction: all of them or none. Updates and replaces
   * bump __v and set updatedAt = op.now on documents they change (nModified counts those);
   * deletes are soft (nDeleted counts live documents they marked deleted); an upsert inserts
   * op.upsert (with the update applied) when nothing matched.
   */
  bulkWrite: (model: Model, operations: BulkOperation[]) => Promise<BulkResult>

  /** Inserts prepared documents, all or none (one import batch); returns how many were inserted. */
  insertMany: (model: Model, docs: Doc[]) => Promise<number>

  /** Refreshes the collection's size statistics after a bulk load (what estimateCount reads). */
  refreshStatistics: (model: Model) => Promise<void>

  /** Every stored document (deleted ones too, passwords included), in _id order, in batches of JSON texts (export). */
  exportAll: (model: Model, batchSize: number) => AsyncIterable<string[]>

  /**
   * Runs `work` with an exportAll that reads every model as of one moment (`quire backup`):
   * PostgreSQL in one REPEATABLE READ, READ ONLY transaction; MongoDB in a snapshot session where
   * the server has them (a replica set), and otherwise without one (`consistent: false`).
   */
  readSnapshot: <T>(work: (snapshot: Snapshot) => Promise<T>) => Promise<T>

  /**
   * Runs a checked aggregation pipeline and returns its output documents as JSON text of an array.
   * Every model it reads (the source, every $lookup, a $lookup of the source itself) enters through
   * its row filter with its password fields removed: no stage can see them.
   */
  aggregate: (model: Model, plan: Authorized<PipelinePlan>) => Promise<string>

  /**
   * Deletes one document as the plan says, all or nothing: finds the target (missing: nothing
   * changes), checks every referrer in order (the first that refuses decides the outcome and
   * nothing changes), then deletes the target and, with cascade, each referrer's linking documents
   * (one level deep), soft or permanent as the plan says. MongoDB needs a replica set only when a
   * cascade has documents to delete (a transaction); the SQL engines always use one.
   */
  deleteOne: (model: Model, plan: Authorized<DeletePlan>) => Promise<DeleteOutcome>

  /**
   * Every document of the query (filter, search, sort, fields, populate; `skip` and `limit` as in
   * find, with no maximum; no count), in the query's order, handed to `onBatch` in batches of at
   * most `batchSize` JSON texts (password fields removed). The next batch is read only once
   * onBatch has resolved, so at most one batch is held; an error onBatch throws stops the read and
   * is rethrown. PostgreSQL reads through a cursor in one transaction (each FETCH under the
   * statement timeout), MongoDB through a cursor. Returns how many documents were handed over.
   */
  streamFind: (
    model: Model,
    query: Authorized<FindQuery>,
    batchSize: number,
    onBatch: (docs: string[]) => Promise<void>
  ) => Promise<number>

  /**
   * For each filter, which of `docs` it matches (`result[filter][doc]`), by the engine's own query
   * semantics: exactly the documents a find with that filter would return were they stored. The
   * documents are given as stored and need not be in the collection. The change feed matches each
   * change against its subscribers' filters with it.
   */
  matchDocuments: (model: Model, docs: Doc[], filters: Array<Authorized<Filter>>) => Promise<boolean[][]>

  /** The log of committed changes to every model, which the change feed reads (change-log.ts). */
  readonly changes: ChangeLog

  /** Releases connections and workers. */
  close: () => Promise<void>
}

/** findOne in terms of find: the first document of the page, or null. */
export function findOneThrough(find: Engine['find']): Engine['findOne'] {
  return async (model, query) => {
    const result = await find(model, query)
    return result.returned === 0 ? null : result.data.slice(1, -1)
  }
}
