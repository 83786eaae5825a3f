// Compiles "which of these documents match which of these filters" into one SQL
// statement over the documents given as a jsonb array: each filter is compiled exactly
// as a find would compile it, so an event matches a subscriber's filter in the change
// feed if and only if a list read would return its document.
import type { Doc } from '../../storage/engine.ts'
import type { Model } from '../../models/model-definition.ts'
import type { Filter } from '../../query/types.ts'
import { compileWhere, type CompiledSql } from './compile-find.ts'
import { SqlParams } from '../sql-text.ts'

/** One row per document, in order, with a boolean column m<i> per filter. */
export function compileMatch(model: Model, docs: Doc[], filters: Filter[]): CompiledSql {
  const params = new SqlParams()
  const source =
    `SELECT e.value AS doc, e.value->>'_id' AS _id, e.ordinality AS n FROM ` +
    `jsonb_array_elements(${params.addJson(docs)}) WITH ORDINALITY e`
  const columns = filters.map((filter, i) => `coalesce((${compileWhere(model, filter, params)}), false) AS m${i}`)
  return { text: `SELECT ${['t.n', ...columns].join(', ')} FROM (${source}) t ORDER BY t.n`, values: params.values }
}
