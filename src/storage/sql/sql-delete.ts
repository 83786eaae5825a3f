// Deletes for the SQL engines (DeletePlan, src/storage/engine.ts): one document and,
// as its plan says, the documents that link to it, in one transaction. Every check
// runs before the first write, so a refused delete changes nothing.
import type { DeleteOutcome, DeletePlan } from '../engine.ts'
import { actingUserId } from '../../runtime/acting-user.ts'
import type { Model } from '../../models/model-definition.ts'
import type { Filter } from '../../query/types.ts'
import { compileWhere } from '../../compiler/find/compile-find.ts'
import { compileProjection } from '../../compiler/find/compile-projection.ts'
import { SqlParams, quoteIdent } from '../../compiler/sql-text.ts'
import { tableName } from '../../compiler/ddl/schema-ddl.ts'
import type { SqlClient } from './sql-client.ts'
import { hiddenFields } from '../../permissions/field-policy.ts'

/** The target row, locked, as JSON text without its password fields. */
async function lockTarget(tx: SqlClient, model: Model, filter: Filter): Promise<{ id: string; d: string } | undefined> {
  const params = new SqlParams()
  const projection = compileProjection(undefined, { params, doc: 't.doc' }, { exclude: hiddenFields(model) })
  const text =
    `SELECT t._id AS id, (${projection})::text AS d FROM ${quoteIdent(tableName(model))} t ` +
    `WHERE ${compileWhere(model, filter, params)} LIMIT 1 FOR UPDATE`
  const [row] = await tx.query(text, params.values)
  return row as { id: string; d: string } | undefined
}

async function anyMatches(tx: SqlClient, model: Model, filter: Filter): Promise<boolean> {
  const params = new SqlParams()
  const text =
    `SELECT EXISTS (SELECT 1 FROM ${quoteIdent(tableName(model))} t ` +
    `WHERE ${compileWhere(model, filter, params)}) AS e`
  const [row] = await tx.query(text, params.values)
  return row.e === true
}

/** Deletes the documents matching `filter` (soft: marks live ones deleted); returns how many. */
async function deleteMatching(tx: SqlClient, model: Model, filter: Filter, plan: DeletePlan): Promise<number> {
  const params = new SqlParams()
  const table = quoteIdent(tableName(model))
  const where = compileWhere(model, filter, params)
  const change = plan.permanent
    ? `DELETE FROM ${table} t WHERE ${where} RETURNING 1`
    : `UPDATE ${table} t SET doc = t.doc || jsonb_build_object('_deleted', true, ` +
      `'updatedAt', ${params.add(plan.now)}::text, ` +
      `'_updated_by_id', ${params.add(actingUserId() ?? null)}::text, ` +
      `'__v', coalesce((t.doc->>'__v')::int, 0) + 1) WHERE ${where} RETURNING 1`
  const [row] = await tx.query(`WITH changed AS (${change}) SELECT count(*) AS n FROM changed`, params.values)
  return Number(row.n)
}

/** The refusal of the first referrer that refuses, if any. */
async function refusal(tx: SqlClient, plan: DeletePlan): Promise<DeleteOutcome | undefined> {
  for (const { model, field, linking, blocked } of plan.referrers) {
    if (!plan.cascade && (await anyMatches(tx, model, linking)))
      return { status: 'referenced', model: model.name, field }
    if (plan.cascade && (await anyMatches(tx, model, blocked))) return { status: 'blocked', model: model.name, field }
  }
  return undefined
}

export async function runDelete(client: SqlClient, model: Model, plan: DeletePlan): Promise<DeleteOutcome> {
  return await client.transaction(async tx => {
    const target = await lockTarget(tx, model, plan.target)
    if (!target) return { status: 'missing' }
    const refused = await refusal(tx, plan)
    if (refused) return refused
    await deleteMatching(tx, model, { _id: target.id }, plan)
    const cascaded = []
    for (const { model: referrer, field, linking } of plan.cascade ? plan.referrers : []) {
      cascaded.push({ model: referrer.name, field, count: await deleteMatching(tx, referrer, linking, plan) })
    }
    return { status: 'deleted', document: target.d, cascaded }
  })
}
