// Bulk writes for the SQL engines: every operation in one transaction. Updates
// are computed in SQL, validated by the caller's check, then written back, so a
// document that would break its schema fails the whole request (a 400).
import { isDeepStrictEqual } from 'node:util'
import type { BulkOperation, BulkResult, Doc, UpdateTerms } from '../engine.ts'
import { LIMITS } from '../../validation/limits.ts'
import { SYSTEM_FIELDS, type Model } from '../../models/model-definition.ts'
import type { SqlClient } from './sql-client.ts'
import { compileWhere } from '../../compiler/find/compile-find.ts'
import { compileUpdate } from '../../compiler/update/compile-update.ts'
import { SqlParams, quoteIdent } from '../../compiler/sql-text.ts'
import { tableName } from '../../compiler/ddl/schema-ddl.ts'
import { QuireError } from '../../errors.ts'
import { actingUserId } from '../../runtime/acting-user.ts'

type Op<K extends BulkOperation['kind']> = Extract<BulkOperation, { kind: K }>

interface Stored {
  id: string
  old: string
  next: string | null
}

function emptyResult(): BulkResult {
  return { nInserted: 0, nMatched: 0, nModified: 0, nUpserted: 0, nDeleted: 0, upsertedIds: [] }
}

export async function insertDocs(tx: SqlClient, model: Model, docs: Doc[]): Promise<number> {
  if (docs.length === 0) return 0
  const params = new SqlParams()
  const text =
    `INSERT INTO ${quoteIdent(tableName(model))} (_id, doc) SELECT e->>'_id', e FROM ` +
    `jsonb_array_elements(${params.addJson(docs)}) e`
  await tx.query(text, params.values)
  return docs.length
}

/** Matching documents (locked) with the update applied in SQL; `next` is null where it cannot apply. */
async function computeUpdates(tx: SqlClient, model: Model, op: Op<'update'>): Promise<Stored[]> {
  const params = new SqlParams()
  const next = compileUpdate(op.update, 't.doc', params)
  const where = compileWhere(model, op.filter, params)
  const limit = op.many ? LIMITS.bulkUpdateDocuments + 1 : 1
  const text =
    `SELECT t._id AS id, t.doc::text AS old, (${next})::text AS next FROM ${quoteIdent(tableName(model))} t ` +
    `WHERE ${where} ORDER BY t._id LIMIT ${limit} FOR UPDATE`
  const rows = (await tx.query(text, params.values)) as unknown as Stored[]
  if (rows.length > LIMITS.bulkUpdateDocuments) {
    throw new QuireError(
      'QUERY_TOO_COMPLEX',
      `updateMany may change at most ${LIMITS.bulkUpdateDocuments} documents at once`
    )
  }
  return rows
}

function cannotApply(id: string): QuireError {
  return new QuireError(
    'INVALID_QUERY',
    `The update cannot be applied to document ${id} (e.g. $inc on a non-number, $push on a non-array)`
  )
}

async function writeBack(tx: SqlClient, model: Model, docs: Doc[]): Promise<void> {
  if (docs.length === 0) return
  const params = new SqlParams()
  const text =
    `UPDATE ${quoteIdent(tableName(model))} t SET doc = e FROM ` +
    `jsonb_array_elements(${params.addJson(docs)}) e WHERE t._id = e->>'_id'`
  await tx.query(text, params.values)
}

/**
 * The new version of a changed document: __v bumped, updatedAt and _updated_by_id set; undefined when nothing changed.
 */
function nextVersion(row: { old: string; next: Doc }, now: string): Doc | undefined {
  const old = JSON.parse(row.old) as Doc
  if (isDeepStrictEqual(row.next, old)) return undefined
  return { ...row.next, updatedAt: now, __v: (Number(old.__v) || 0) + 1, _updated_by_id: actingUserId() ?? null }
}

async function applyUpsertUpdate(tx: SqlClient, seed: Doc, update: UpdateTerms): Promise<Doc> {
  const params = new SqlParams()
  const rows = await tx.query(
    `SELECT (${compileUpdate(update, params.addJson(seed), params)})::text AS d`,
    params.values
  )
  if (rows[0].d === null) throw cannotApply(String(seed._id))
  return JSON.parse(rows[0].d as string) as Doc
}

async function runUpdate(tx: SqlClient, model: Model, op: Op<'update'>, result: BulkResult): Promise<void> {
  const rows = await computeUpdates(tx, model, op)
  result.nMatched += rows.length
  if (rows.length === 0 && op.upsert) {
    const doc = await applyUpsertUpdate(tx, op.upsert, op.update)
    op.check(doc)
    await insertDocs(tx, model, [doc])
    result.nUpserted++
    result.upsertedIds.push(String(doc._id))
    return
  }
  const changed: Doc[] = []
  for (const row of rows) {
    if (row.next === null) throw cannotApply(row.id)
    const doc = nextVersion({ old: row.old, next: JSON.parse(row.next) as Doc }, op.now)
    if (!doc) continue
    op.check(doc)
    changed.push(doc)
  }
  await writeBack(tx, model, changed)
  result.nModified += changed.length
}

async function runReplace(tx: SqlClient, model: Model, op: Op<'replace'>, result: BulkResult): Promise<void> {
  const params = new SqlParams()
  const text =
    `SELECT t._id AS id, t.doc::text AS old FROM ${quoteIdent(tableName(model))} t ` +
    `WHERE ${compileWhere(model, op.filter, params)} ORDER BY t._id LIMIT 1 FOR UPDATE`
  const [row] = (await tx.query(text, params.values)) as unknown as Stored[]
  if (!row) {
    if (!op.upsert) return
    await insertDocs(tx, model, [{ ...op.upsert, ...op.replacement }])
    result.nUpserted++
    result.upsertedIds.push(String(op.upsert._id))
    return
  }
  result.nMatched++
  const old = JSON.parse(row.old) as Doc
  const system = Object.fromEntries(SYSTEM_FIELDS.map(k => [k, old[k]]))
  const doc = nextVersion({ old: row.old, next: { ...op.replacement, ...system } }, op.now)
  if (doc) {
    await writeBack(tx, model, [doc])
    result.nModified++
  }
}

async function runDelete(tx: SqlClient, model: Model, op: Op<'delete'>, result: BulkResult): Promise<void> {
  const params = new SqlParams()
  const table = quoteIdent(tableName(model))
  const target =
    `SELECT t._id FROM ${table} t WHERE ${compileWhere(model, { $and: [op.filter, { _deleted: false }] }, params)}` +
    (op.many ? '' : ' ORDER BY t._id LIMIT 1')
  const text =
    `UPDATE ${table} t SET doc = t.doc || jsonb_build_object('_deleted', true, ` +
    `'updatedAt', ${params.add(op.now)}::text, ` +
    `'_updated_by_id', ${params.add(actingUserId() ?? null)}::text, ` +
    `'__v', coalesce((t.doc->>'__v')::int, 0) + 1) WHERE t._id IN (${target}) RETURNING 1`
  result.nDeleted += (await tx.query(text, params.values)).length
}

/** Runs a bulk request on a SqlClient inside one transaction. */
export async function runBulkWrite(client: SqlClient, model: Model, operations: BulkOperation[]): Promise<BulkResult> {
  return await client.transaction(async tx => {
    const result = emptyResult()
    for (const op of operations) {
      switch (op.kind) {
        case 'insert':
          result.nInserted += await insertDocs(tx, model, [op.doc])
          break
        case 'update':
          await runUpdate(tx, model, op, result)
          break
        case 'replace':
          await runReplace(tx, model, op, result)
          break
        case 'delete':
          await runDelete(tx, model, op, result)
          break
      }
    }
    return result
  })
}
