// The SQL compiler's context for an authorized pipeline on `model`: the source's
// stored rows (filtered, then stripped of hidden fields by the compiler), and every
// $lookup target (the source model itself included) read through a relation that
// has its hidden fields removed: no stage ever sees a password hash.
import type { Authorized, PipelinePlan } from '../engine.ts'
import type { Model } from '../../models/model-definition.ts'
import type { PipelineContext } from '../../compiler/pipeline/compile-pipeline.ts'
import { fieldKindLookup } from '../../models/field-kinds.ts'
import { hiddenFields } from '../../permissions/field-policy.ts'
import { quoteIdent } from '../../compiler/sql-text.ts'
import { withoutKeys } from '../../compiler/find/compile-projection.ts'
import { tableName } from '../../compiler/ddl/schema-ddl.ts'
import { coveredFields } from '../../compiler/ddl/covering-columns.ts'

/** A model's rows as a pipeline stage sees them: hidden fields removed. */
function strippedRows(model: Model): string {
  const table = quoteIdent(tableName(model))
  const hidden = hiddenFields(model)
  if (hidden.length === 0) return table
  return `(SELECT _id, ${withoutKeys('doc', hidden)} AS doc FROM ${table})`
}

export function pipelineContextFor(model: Model, plan: Authorized<PipelinePlan>): PipelineContext {
  return {
    sourceTable: quoteIdent(tableName(model)),
    baseFilter: plan.filter,
    hiddenFields: hiddenFields(model),
    lookup: name => {
      const source = plan.lookups.get(name)
      if (!source) throw new Error(`$lookup into ${name} was not authorized`)
      return { table: strippedRows(source.model), filter: source.filter }
    },
    kindOf: fieldKindLookup(model),
    coveredFields: coveredFields(model)
  }
}
