// Engine.matchDocuments for the SQL engines: the documents go to the database as one
// jsonb array and every filter is evaluated there by the find compiler (in chunks, so
// that no statement grows without bound).
import type { Engine } from '../engine.ts'
import type { SqlClient } from './sql-client.ts'
import { compileMatch } from '../../compiler/find/compile-match.ts'

const FILTERS_PER_STATEMENT = 50
const DOCS_PER_STATEMENT = 500

export function sqlMatchDocuments(
  client: SqlClient,
  run: <T>(work: () => Promise<T>) => Promise<T>
): Engine['matchDocuments'] {
  return async (model, docs, filters) => {
    const result = filters.map(() => docs.map(() => false))
    for (let f = 0; f < filters.length; f += FILTERS_PER_STATEMENT) {
      const someFilters = filters.slice(f, f + FILTERS_PER_STATEMENT)
      for (let d = 0; d < docs.length; d += DOCS_PER_STATEMENT) {
        const { text, values } = compileMatch(model, docs.slice(d, d + DOCS_PER_STATEMENT), someFilters)
        const rows = await run(() => client.query(text, values))
        for (const [i, row] of rows.entries()) {
          for (let j = 0; j < someFilters.length; j++) result[f + j][d + i] = row[`m${j}`] === true
        }
      }
    }
    return result
  }
}
