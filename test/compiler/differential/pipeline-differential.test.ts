// Differential test of the aggregation compiler: seeded generated pipelines run on a real
// PostgreSQL server (a throwaway cluster), compared with mingo's aggregation of the same documents.
import t from 'tap'
import postgres from 'postgres'
import type { FieldKind } from '../../../src/query/types.ts'
import { startPgCluster } from '../../helpers/throwaway-cluster.ts'
import { coveredFields, coveringColumns } from '../../../src/compiler/ddl/covering-columns.ts'
import { parseModelFile } from '../../../src/models/load-models.ts'
import { quoteIdent } from '../../../src/compiler/sql-text.ts'
import {
  compileItemsPipeline,
  createMingoReference,
  createRng,
  itemsContext,
  makeItems,
  makeOwners,
  resultKey,
  type Doc
} from './pipeline-fixtures.ts'
import { createCoveredGroupGenerator, createPipelineGenerator, type GeneratedPipeline } from './pipeline-generator.ts'

const PIPELINES = 500
/** Pipelines of the shape covering indexes answer, generated after the others. */
const COVERED_SHAPES = 80
const rng = createRng(20240601)
const owners = makeOwners(rng, 40)
const items = makeItems(rng, 1000, owners)
const generate = createPipelineGenerator(rng)
const runMingo = createMingoReference(items, owners)
const generateCovered = createCoveredGroupGenerator(rng)
const cases: GeneratedPipeline[] = [
  ...Array.from({ length: PIPELINES }, () => generate()),
  ...Array.from({ length: COVERED_SHAPES }, () => generateCovered())
]

const KINDS: Record<string, FieldKind> = {
  _id: 'string',
  _deleted: 'boolean',
  i: 'integer',
  f: 'number',
  name: 'string',
  nested: 'object'
}
const ctx = itemsContext({ _deleted: false }, path => KINDS[path])

/**
 * The same items with a covering index (src/compiler/ddl/covering-columns.ts): pipelines it answers are compared too.
 */
const COVERED_ITEMS = parseModelFile(
  JSON.stringify({
    name: 'items',
    fields: {
      i: { type: 'integer' },
      f: { type: 'number' },
      name: { type: 'string', maxLength: 40 },
      cat: { type: 'string', maxLength: 40 },
      s: { type: 'string', maxLength: 40 },
      b: { type: 'boolean' },
      d: { type: 'date' }
    },
    additionalFields: true,
    indexes: [{ fields: ['i'], include: ['f', 'name', 'cat', 's', 'b', 'd', '_owner_id', 'createdAt'] }]
  }),
  'items.json'
)
const coveredCtx = { ...ctx, coveredFields: coveredFields(COVERED_ITEMS) }
const coveringColumnsSql = `ALTER TABLE q_items ${coveringColumns(COVERED_ITEMS)
  .map(c => `ADD COLUMN ${quoteIdent(c.name)} ${c.sql}`)
  .join(', ')}`

const SETUP = [
  ...['items', 'owners'].map(m => `CREATE TABLE q_${m} (_id text PRIMARY KEY, doc jsonb NOT NULL)`),
  coveringColumnsSql
]
const insert = (model: string): string =>
  `INSERT INTO q_${model} SELECT e->>'_id', e FROM jsonb_array_elements($1::text::jsonb) AS e`

t.test('generated pipelines agree with mingo on PostgreSQL', async t => {
  const cluster = await startPgCluster()
  // JIT compilation costs more than it saves on these small statements
  const sql = postgres(cluster.url, { onnotice: () => {}, max: 2, connection: { jit: 'off' } })
  t.teardown(async () => {
    await sql.end()
    await cluster.stop()
  })
  for (const statement of SETUP) await sql.unsafe(statement)
  for (const [model, docs] of [
    ['items', items],
    ['owners', owners]
  ] as const)
    await sql.unsafe(insert(model), [JSON.stringify(docs)])
  await sql.unsafe('ANALYZE')

  let agree = 0
  let mingoErrors = 0
  let coveredAgree = 0
  const failures: string[] = []
  for (const c of cases) {
    const general = compileItemsPipeline(c.stages, ctx)
    const covered = compileItemsPipeline(c.stages, coveredCtx)
    const statements = covered.text === general.text ? [general] : [general, covered]
    // the server works in its own processes while mingo runs here
    const runs = statements.map(({ text, values }) => sql.unsafe(text, values as never[]).execute())
    let expected: Doc[] | undefined
    try {
      expected = runMingo(c.stages, c.sampleSize)
    } catch {
      mingoErrors++
    }
    for (const [i, server] of runs.entries()) {
      let serverRows: Doc[]
      try {
        serverRows = (await server).map(r => r.doc as Doc)
      } catch (err) {
        failures.push(`${JSON.stringify(c.stages)}\n  SQL error: ${(err as Error).message}`)
        continue
      }
      if (expected === undefined) continue
      const same =
        c.sampleSize !== undefined
          ? serverRows.length === expected.length
          : resultKey(serverRows, c.ordered) === resultKey(expected, c.ordered)
      if (same) i === 0 ? agree++ : coveredAgree++
      else {
        failures.push(
          `${i === 0 ? '' : '(covered) '}${JSON.stringify(c.stages)}\n  mingo:   ` +
            ` ${JSON.stringify(expected).slice(0, 600)}\n  ` +
            `postgres: ${JSON.stringify(serverRows).slice(0, 600)}`
        )
      }
    }
  }
  const compared = cases.length - mingoErrors
  t.comment(
    `pipeline differential: ${agree}/${compared} agree on postgres ` +
      `(${mingoErrors} of ${cases.length} skipped: mingo raised an error); ${coveredAgree} answered from ` +
      `covering columns agree too`
  )
  t.ok(coveredAgree >= COVERED_SHAPES / 4, 'pipelines answered from covering columns are compared too')
  for (const failure of failures.slice(0, 5)) t.comment(failure)
  t.equal(failures.length, 0, 'every statement runs on PostgreSQL and agrees with mingo')
  t.equal(agree, compared, 'every compared pipeline agrees with mingo on PostgreSQL')
  t.ok(mingoErrors <= cases.length / 10, 'few generated pipelines are ones mingo rejects')
})
