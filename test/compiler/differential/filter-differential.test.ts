// Differential test of the SQL filter and sort compilers: generated filters (and sorts), compiled
// to SQL, must select on a real PostgreSQL server (a throwaway cluster) exactly the documents mingo
// (MongoDB semantics in memory) selects, in the same order when sorted. Every case is compiled
// three times: without kind hints (the general jsonpath forms), with them (the b-tree forms of
// indexed fields), and with kind and containment hints (the GIN forms of fields without an index).
import t from 'tap'
import postgres from 'postgres'
import { Query as MingoQuery } from 'mingo'
import type { FieldKindLookup, Filter } from '../../../src/query/types.ts'
import { compileFilter } from '../../../src/compiler/filter/compile-filter.ts'
import { checkFilter } from '../../../src/validation/check-query.ts'
import { compileSort } from '../../../src/compiler/find/compile-find.ts'
import { startPgCluster } from '../../helpers/throwaway-cluster.ts'
import { SqlParams, type SqlValue } from '../../../src/compiler/sql-text.ts'
import { INDEX_SCANS, loadDocuments, selectIds, type Outcome, type Query, type Statement } from './differential-db.ts'
import {
  containmentOf,
  generateCases,
  generateDocuments,
  kindOf,
  makeRng,
  type GeneratedCase
} from './differential-data.ts'
import type { ContainmentLookup } from '../../../src/compiler/filter/compile-comparison.ts'

const DOCUMENTS = 2000
const FILTERS = 1500
const SEED = 20240601
const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

type Doc = Record<string, unknown>
interface Mode {
  name: string
  kindOf?: FieldKindLookup
  containment?: ContainmentLookup
}

/**
 * The filter as mingo must see it: Quire stores dates as ISO strings, so a Date operand becomes
 * its string, and `$type: "date"` (a string in that form) becomes the equivalent regex.
 */
function toOracle(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString()
  if (Array.isArray(value)) return value.map(toOracle)
  if (value === null || typeof value !== 'object' || value instanceof RegExp) return value
  const entries = Object.entries(value).map(([k, v]) =>
    k === '$type' && (v === 'date' || v === 9) ? ['$regex', ISO_DATE] : [k, toOracle(v)]
  )
  return Object.fromEntries(entries)
}

function expectedIds(docs: Doc[], c: GeneratedCase): string[] {
  const cursor = new MingoQuery(toOracle(c.filter) as Filter, {}).find<Doc>(docs)
  if (c.sort) cursor.sort(Object.fromEntries([...c.sort, ['_id', c.sort.at(-1)?.[1] === -1 ? -1 : 1]]))
  const ids = cursor.all().map(d => d._id as string)
  return c.sort ? ids : ids.sort()
}

function compileCase(c: GeneratedCase, mode: Mode): { text: string; values: SqlValue[] } {
  const params = new SqlParams()
  const where = compileFilter(checkFilter(c.filter), {
    params,
    doc: 't.doc',
    kindOf: mode.kindOf,
    containment: mode.containment
  })
  const order = c.sort
    ? ` ORDER BY ${compileSort(c.sort, { params, doc: 't.doc', idColumn: 't._id', kindOf: mode.kindOf })}`
    : ''
  return { text: `SELECT t._id FROM docs t WHERE ${where}${order}`, values: params.values }
}

function describe(value: unknown): string {
  return JSON.stringify(value, (_, v) => (v instanceof RegExp ? `/${v.source}/${v.flags}` : v))
}

interface Keyed extends Statement {
  key: string
}

/** Runs every statement on PostgreSQL, three at a time, while the main thread computes mingo's answers. */
async function runOnServer(query: Query, statements: Keyed[]): Promise<Map<string, Outcome>> {
  const outcomes = new Map<string, Outcome>()
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < statements.length) {
      const statement = statements[next++]
      outcomes.set(statement.key, await selectIds(query, statement))
    }
  }
  await Promise.all([worker(), worker(), worker()])
  return outcomes
}

/** mingo's answers, computed in slices so that the server queries keep flowing meanwhile. */
async function computeExpected(docs: Doc[], cases: GeneratedCase[]): Promise<string[][]> {
  const expected: string[][] = []
  for (const c of cases) {
    expected.push(expectedIds(docs, c))
    if (expected.length % 20 === 0) await new Promise(resolve => setImmediate(resolve))
  }
  return expected
}

t.test('SQL filters agree with mingo on PostgreSQL', async t => {
  const docs = generateDocuments(DOCUMENTS, makeRng(SEED))
  const cases = generateCases(FILTERS, makeRng(SEED + 1))
  const cluster = await startPgCluster()
  // JIT compilation would cost PostgreSQL 15 more than running these statements.
  const server = postgres(cluster.url, { max: 3, onnotice: () => {}, connection: { jit: 'off', ...INDEX_SCANS } })
  t.teardown(async () => {
    await server.end()
    await cluster.stop()
  })
  const query: Query = async (text, values) => await server.unsafe(text, values)
  await loadDocuments(query, docs)
  const modes: Mode[] = [
    { name: 'without kind hints' },
    { name: 'with kind hints', kindOf },
    { name: 'with containment hints', kindOf, containment: containmentOf }
  ]
  // A case whose SQL is the same in both modes runs once: same statement, same rows.
  const compiled = modes.map(mode =>
    cases.map(c => {
      const sql = compileCase(c, mode)
      return { ...sql, key: JSON.stringify([sql.text, sql.values]), sorted: c.sort !== undefined }
    })
  )
  const statements = [...new Map(compiled.flat().map(s => [s.key, s])).values()]
  const onServer = runOnServer(query, statements)
  const expected = await computeExpected(docs, cases)
  const results = { postgres: await onServer }
  const selective = expected.filter(ids => ids.length > 0 && ids.length < DOCUMENTS).length
  t.comment(
    `filter differential: ${DOCUMENTS} documents, ${FILTERS} filters (${cases.filter(c => c.sort).length} sorted, ` +
      `${selective} selecting some but not all documents), ${statements.length} distinct statements`
  )
  modes.forEach((mode, m) => {
    const failures: string[] = []
    let agreed = 0
    cases.forEach((c, i) => {
      const key = compiled[m][i].key
      const wrong = Object.entries(results)
        .map(([engine, byKey]) => [engine, byKey.get(key) ?? 'not run'] as [string, Outcome])
        .filter(([, got]) => JSON.stringify(got) !== JSON.stringify(expected[i]))
      if (wrong.length === 0) agreed++
      else if (failures.length < 10) failures.push(describeFailure(c, compiled[m][i].text, expected[i], wrong))
    })
    t.comment(`filter differential (${mode.name}): ${agreed}/${cases.length} filters agree on postgres`)
    t.equal(agreed, cases.length, `every filter agrees with mingo on PostgreSQL, ${mode.name}`, { failures })
  })
})

function describeFailure(c: GeneratedCase, sql: string, want: string[], wrong: Array<[string, Outcome]>): string {
  const detail = wrong.map(([engine, got]) => {
    if (typeof got === 'string') return `${engine}: ${got}`
    const missing = want.filter(id => !got.includes(id)).slice(0, 5)
    const extra = got.filter(id => !want.includes(id)).slice(0, 5)
    return (
      `${engine}: got ${got.length} want ${want.length}; missing ${missing.join(',')}; extra ${extra.join(',')}` +
      (missing.length + extra.length === 0 ? ' (order differs)' : '')
    )
  })
  return `${describe(c.filter)} sort=${describe(c.sort)}\n  ${detail.join('\n  ')}\n  ${sql}`
}
