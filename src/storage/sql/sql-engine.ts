// The Engine for PostgreSQL: every operation is one compiled SQL
// statement over a SqlClient. Tables hold (_id text primary key, doc jsonb).
import type { Doc, Engine, FindQuery, FindResult } from '../engine.ts'
import { findOneThrough } from '../engine.ts'
import type { Model } from '../../models/model-definition.ts'
import type { SqlClient, StatementCost } from './sql-client.ts'
import { SqlError } from './sql-client.ts'
import type { Filter } from '../../query/types.ts'
import { compileFind, compileWhere } from '../../compiler/find/compile-find.ts'
import { compileProjection } from '../../compiler/find/compile-projection.ts'
import { SqlParams, quoteIdent } from '../../compiler/sql-text.ts'
import { tableName } from '../../compiler/ddl/schema-ddl.ts'
import { syncModelSchema } from './schema/sync-schema.ts'
import { insertDocs, runBulkWrite } from './sql-bulk-write.ts'
import { runDelete } from './sql-delete.ts'
import { streamFind } from './sql-stream.ts'
import { compileBoundedPipeline } from '../../compiler/pipeline/compile-pipeline.ts'
import { MAX_RESULT_BYTES, resultArray } from '../aggregate-result.ts'
import { pipelineContextFor } from './pipeline-context.ts'
import { QuireError } from '../../errors.ts'
import { syncChangeCapture } from './schema/sync-change-capture.ts'
import { searchRanks } from '../../compiler/ddl/search-ranks.ts'
import { createSqlChangeLog } from './changes/sql-change-log.ts'
import { withChangeActor } from './changes/sql-change-client.ts'
import { sqlMatchDocuments } from './sql-match-documents.ts'
import { actingUserId } from '../../runtime/acting-user.ts'
import { createInsertBatches } from './insert-batches.ts'
import { hiddenFields } from '../../permissions/field-policy.ts'

/**
 * Turns the database errors a client can cause into catalogue errors: a data exception (SQLSTATE
 * class 22: a number out of range in $multiply, text the database cannot hold) is the client's
 * values, a program limit (class 54) the query's size; a full disk (53100) is the service's, a 503.
 */
export function translateSqlError(err: unknown): never {
  if (err instanceof SqlError && err.code !== undefined) {
    if (err.code === '23505') throw new QuireError('DUPLICATE_KEY')
    if (err.code === '57014') throw new QuireError('QUERY_TIMEOUT')
    if (err.code === '2201B') throw new QuireError('INVALID_REGEX', 'Invalid regular expression')
    if (err.code.startsWith('54'))
      throw new QuireError('QUERY_TOO_COMPLEX', 'The query is too complex for the database')
    if (err.code.startsWith('22'))
      throw new QuireError(
        'INVALID_QUERY',
        `The database cannot evaluate the query on these values: ${err.message.slice(0, 200)}`
      )
    if (err.code === '53100') throw new QuireError('UNAVAILABLE', 'The database is out of disk space')
  }
  throw err
}

/**
 * A statement selecting by a filter costs little when the filter pins one primary key and asks
 * nothing else of that row but plain equalities (soft delete, owner). Any other condition (a
 * regular expression, $or, a comparison) may cost the whole statement timeout on that one row:
 * eight such reads at once held everyone's reads at p95 5 s while they skipped the expensive gate.
 */
export function costOfFilter(filter: Filter): StatementCost {
  if (typeof filter._id !== 'string') return 'expensive'
  const plain = Object.entries(filter).every(
    ([key, value]) => !key.startsWith('$') && (value === null || typeof value !== 'object')
  )
  return plain ? 'simple' : 'expensive'
}

/** Statements that address one document by key: reads and writes by id, auth lookups. */
const SIMPLE = { cost: 'simple' } as const

async function run<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (err) {
    return translateSqlError(err)
  }
}

export function createSqlEngine(raw: SqlClient, log: (msg: string) => void = () => {}): Engine {
  const changes = createSqlChangeLog(raw, log)
  // Every statement that may write goes through `client`, which hands the change capture the acting
  // user; reads (find, findOne, findRaw, count, the estimates, matchDocuments) run on `raw`.
  const client = withChangeActor(raw, { actor: actingUserId, wrote: changes.localWrite })
  const projectionOf = (model: Model, params: SqlParams, fields?: string[]): string =>
    compileProjection(fields, { params, doc: 't.doc' }, { exclude: hiddenFields(model) })

  async function find(
    model: Model,
    query: FindQuery,
    cost: StatementCost = costOfFilter(query.filter)
  ): Promise<FindResult> {
    const { text, values, planForValues, firstTry } = compileFind(model, query)
    type PageRow = { d: unknown; total?: unknown }
    const walked =
      firstTry === undefined
        ? undefined
        : ((await run(() => raw.query(firstTry.text, firstTry.values, { cost, quickFirst: true }))) as PageRow[])
    const rows =
      walked !== undefined && walked.length === query.limit
        ? walked
        : ((await run(() => raw.query(text, values, { cost, planForValues, quickFirst: true }))) as PageRow[])
    const docs = rows.filter(r => r.d !== null).map(r => r.d as string)
    return {
      data: `[${docs.join(',')}]`,
      returned: docs.length,
      ...(query.count && { count: Number(rows[0]?.total ?? 0) })
    }
  }

  /** Every document of a model through `source` (the pool, or a snapshot's transaction), in keyset pages by _id. */
  function exportFrom(source: SqlClient): Engine['exportAll'] {
    return async function* (model, batchSize) {
      const text =
        `SELECT _id, doc::text AS d FROM ${quoteIdent(tableName(model))} WHERE _id > $1 ORDER BY _id ` +
        `LIMIT ${Math.max(1, Math.floor(batchSize))}`
      let last = ''
      for (;;) {
        const rows = await source.query(text, [last])
        if (rows.length === 0) return
        last = rows[rows.length - 1]._id as string
        yield rows.map(r => r.d as string)
      }
    }
  }

  const insert = createInsertBatches({
    one: async (model, doc) => {
      const params = new SqlParams()
      const text =
        `INSERT INTO ${quoteIdent(tableName(model))} AS t (_id, doc) VALUES ` +
        `(${params.add(doc._id as string)}, ${params.addJson(doc)}) ` +
        `RETURNING (${projectionOf(model, params)})::text AS d`
      const rows = await run(() => client.query(text, params.values, SIMPLE))
      return rows[0].d as string
    },
    many: async (model, docs) => {
      const params = new SqlParams()
      const text =
        `INSERT INTO ${quoteIdent(tableName(model))} AS t (_id, doc) SELECT e->>'_id', e FROM ` +
        `jsonb_array_elements(${params.add(docs)}::text::jsonb) e ` +
        `RETURNING t._id AS i, (${projectionOf(model, params)})::text AS d`
      const rows = await client.query(text, params.values, SIMPLE)
      return new Map(rows.map(row => [row.i as string, row.d as string]))
    }
  })

  return {
    kind: client.kind,

    syncModels: async models => {
      await client.transaction(async tx => {
        await tx.query('SELECT pg_advisory_xact_lock(726354100)')
        await tx.exec('SET LOCAL statement_timeout = 0')
        for (const model of models) await syncModelSchema(tx, model, log, client)
        await syncChangeCapture(tx, models)
      })
    },

    insert,

    findOne: findOneThrough((model, query) => find(model, query, 'simple')),

    findRaw: async (model, filter) => {
      const params = new SqlParams()
      const text =
        `SELECT t.doc::text AS d FROM ${quoteIdent(tableName(model))} t ` +
        `WHERE ${compileWhere(model, filter, params)} LIMIT 1`
      const rows = await run(() => raw.query(text, params.values, SIMPLE))
      return rows.length ? (JSON.parse(rows[0].d as string) as Doc) : null
    },

    find,

    count: async (model, filter) => {
      const params = new SqlParams()
      const text =
        `SELECT count(*) AS n FROM ${quoteIdent(tableName(model))} t ` + `WHERE ${compileWhere(model, filter, params)}`
      const rows = await run(() => raw.query(text, params.values, { cost: costOfFilter(filter), quickFirst: true }))
      return Number(rows[0].n)
    },

    planCount: async (model, filter) => {
      const params = new SqlParams()
      const text =
        `EXPLAIN (FORMAT JSON) SELECT 1 FROM ${quoteIdent(tableName(model))} t ` +
        `WHERE ${compileWhere(model, filter, params)}`
      const rows = await run(() => raw.query(text, params.values, SIMPLE))
      return Math.round((rows[0]['QUERY PLAN'] as Array<{ Plan: { 'Plan Rows': number } }>)[0].Plan['Plan Rows'])
    },

    estimateCount: async model => {
      const text =
        'SELECT greatest(c.reltuples, coalesce(s.n_live_tup, 0))::bigint AS n FROM pg_class c ' +
        'LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.oid = to_regclass($1)'
      const rows = await run(() => raw.query(text, [quoteIdent(tableName(model))], SIMPLE))
      return Number(rows[0]?.n ?? 0)
    },

    updateOne: async (model, filter, set) => {
      const params = new SqlParams()
      const table = quoteIdent(tableName(model))
      const target = `SELECT t._id FROM ${table} t WHERE ${compileWhere(model, filter, params)} LIMIT 1`
      const text =
        `UPDATE ${table} AS t SET doc = t.doc || ${params.addJson(set)} || ` +
        `jsonb_build_object('__v', coalesce((t.doc->>'__v')::int, 0) + 1) WHERE t._id = (${target}) ` +
        `RETURNING (${projectionOf(model, params)})::text AS d`
      const rows = await run(() => client.query(text, params.values, SIMPLE))
      return rows.length ? (rows[0].d as string) : null
    },

    aggregate: async (model, plan) => {
      const { text, values } = compileBoundedPipeline(plan.stages, pipelineContextFor(model, plan), MAX_RESULT_BYTES)
      const rows = await run(() => client.query(text, values, { quickFirst: true }))
      return await resultArray(rows.map(r => r.d as string))
    },

    bulkWrite: (model, operations) => run(() => runBulkWrite(client, model, operations)),

    deleteOne: (model, plan) => run(() => runDelete(client, model, plan)),

    streamFind: (model, query, batchSize, onBatch) => run(() => streamFind(client, model, query, batchSize, onBatch)),

    insertMany: (model, docs) => run(() => insertDocs(client, model, docs)),

    refreshStatistics: async model => {
      const ranks = searchRanks(model)
      await client.exec(`ANALYZE ${quoteIdent(tableName(model))}${ranks ? `, ${quoteIdent(ranks.name)}` : ''}`)
    },

    exportAll: exportFrom(client),

    readSnapshot: work =>
      raw.transaction(async tx => {
        await tx.exec('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY')
        return await work({ consistent: true, exportAll: exportFrom(tx) })
      }),

    matchDocuments: sqlMatchDocuments(raw, run),

    changes,

    close: async () => {
      await changes.close()
      await client.close()
    }
  }
}
