// A page filtered on a field without an index of its own (served by the collection's GIN index)
// is first tried on a bounded prefix of the collection in _id order: once VACUUM had cleaned the
// GIN index's pending list, PostgreSQL read every match of `filter[shmack]=3` (1 in 20 documents
// of more than 1 KB, which ANALYZE leaves out of its statistics) and sorted them, 3.5x the
// database time of walking to the page's ten rows. The pages must stay exactly the same.
import t from 'tap'
import { openPostgres } from '../../../src/storage/postgres/postgres-client.ts'
import { createSqlEngine } from '../../../src/storage/sql/sql-engine.ts'
import { loadModels } from '../../../src/models/load-models.ts'
import { authorized } from '../../../src/permissions/authorized.ts'
import { compileFind } from '../../../src/compiler/find/compile-find.ts'
import type { SqlClient } from '../../../src/storage/sql/sql-client.ts'
import { type SqlValue, quoteLiteral } from '../../../src/compiler/sql-text.ts'
import type { Filter } from '../../../src/query/types.ts'
import type { FindQuery } from '../../../src/storage/engine.ts'
import { databaseUrl, ENGINES, type EngineName } from '../../helpers/test-app.ts'

const DOCS = 3000
const models = loadModels(new URL('../../../models', import.meta.url).pathname)
const TEST = models.get('test')!

interface PlanNode {
  'Node Type': string
  'Index Name'?: string
  'Actual Loops'?: number
  Filter?: string
  Plans?: PlanNode[]
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)]

/** The root plan node of EXPLAIN (`options`) of a statement. */
async function walkPlan(
  client: Pick<SqlClient, 'query'>,
  statement: { text: string; values: SqlValue[] },
  options: string
): Promise<PlanNode> {
  const [row] = await client.query(`EXPLAIN (${options}) ${statement.text}`, statement.values)
  const plan = row['QUERY PLAN'] as Array<{ Plan: PlanNode }> | string
  return (typeof plan === 'string' ? (JSON.parse(plan) as Array<{ Plan: PlanNode }>) : plan)[0].Plan
}

async function openClient(engine: EngineName): Promise<SqlClient> {
  return openPostgres(await databaseUrl(engine), 60_000)
}

const idOf = (i: number): string => i.toString(16).padStart(24, '0')
/** Which seeded documents hold `value` in shmack: 1 in 20 hold String(i % 20); three hold "rare". */
const holds = (i: number, value: string): boolean => String(i % 20) === value || (value === 'rare' && i % 1000 === 999)

/** DOCS documents of about 1.3 KB (too wide for ANALYZE's sample), then VACUUM ANALYZE. */
async function seed(client: SqlClient): Promise<void> {
  await createSqlEngine(client).syncModels([...models.values()])
  const id = "lpad(to_hex(g), 24, '0')"
  await client.exec(
    `INSERT INTO q_test SELECT ${id}, jsonb_build_object('_id', ${id}, 'id', ${id}, '_deleted', false, ` +
      "'fulltext', repeat('padding ', 160), " +
      "'shmack', CASE WHEN g % 1000 = 999 THEN jsonb_build_array('w', (g % 20)::text, 'rare') ELSE " +
      "jsonb_build_array('w', (g % 20)::text) END) " +
      `FROM generate_series(0, ${DOCS - 1}) g`
  )
  await client.exec('VACUUM ANALYZE q_test')
}

function pageQuery(filter: Filter, skip: number, count = false) {
  return compileFind(TEST, { sort: [], populate: [], limit: 10, skip, count, filter: authorized(filter) })
}

async function pageIds(client: SqlClient, value: string, skip: number, descending = false): Promise<string[]> {
  const query: FindQuery = {
    sort: descending ? [['_id', -1]] : [],
    populate: [],
    limit: 10,
    skip,
    count: false,
    filter: authorized({ _deleted: false, shmack: value })
  }
  const { data } = await createSqlEngine(client).find(TEST, authorized(query))
  return (JSON.parse(data) as Array<{ _id: string }>).map(doc => doc._id)
}

function expectedIds(value: string, skip: number, descending = false): string[] {
  const all = Array.from({ length: DOCS }, (_, i) => i)
    .filter(i => holds(i, value))
    .map(idOf)
  return (descending ? all.reverse() : all).slice(skip, skip + 10)
}

for (const engine of ENGINES) {
  t.test(`${engine}: a page of a GIN-served filter walks the first documents in _id order`, async t => {
    const client = await openClient(engine)
    t.teardown(() => client.close())
    await seed(client)

    const find = pageQuery({ _deleted: false, shmack: '3' }, 0)
    t.ok(find.planForValues && find.firstTry, 'the filter is planned for its value, with a walk to try first')
    const root = (await walkPlan(client, find.firstTry!, 'ANALYZE, FORMAT JSON')) as PlanNode & {
      'Actual Rows': number
    }
    t.equal(root['Actual Rows'], 10, 'a value 1 in 20 documents hold: the walk finds the whole page')
    t.same(
      nodesOf(root).filter(n => n['Node Type'].startsWith('Bitmap')),
      [],
      'without reading the GIN index'
    )
    // The walk runs prepared: PostgreSQL plans it once for any value, and such a plan evaluates a
    // cast of a parameter for every row it filters (parsing the JSON text of {"shmack":["3"]}).
    const { text, values } = find.firstTry!
    const generic = await client.transaction(async tx => {
      await tx.exec('SET LOCAL plan_cache_mode = force_generic_plan')
      await tx.exec(`PREPARE walk AS ${text}`)
      const plan = await walkPlan(
        tx,
        { text: `EXECUTE walk(${values.map(v => quoteLiteral(String(v))).join(', ')})`, values: [] },
        'FORMAT JSON'
      )
      await tx.exec('DEALLOCATE walk')
      return plan
    })
    const filters = nodesOf(generic).flatMap(n => n.Filter ?? [])
    t.ok(
      filters.some(f => f.includes('@>')),
      'the generic plan filters the walked rows by containment'
    )
    t.same(
      filters.filter(f => /\(\$\d+\)::jsonb/.test(f)),
      [],
      'with the JSON values cast once per execution, not for each row'
    )
    t.equal(
      pageQuery({ _deleted: false, shmack: '3' }, 995).firstTry,
      undefined,
      'no walk for a page ending beyond 1,000 rows'
    )
    t.equal(
      pageQuery({ _deleted: false, shmack: '3' }, 0, true).firstTry,
      undefined,
      'nor when the count is asked for too'
    )

    for (const [value, skip, descending] of [
      ['3', 0, false],
      ['3', 10, false],
      ['3', 0, true],
      ['rare', 0, false],
      ['absent', 0, false],
      ['7', 140, false]
    ] as const) {
      t.same(
        await pageIds(client, value, skip, descending),
        expectedIds(value, skip, descending),
        `the engine's page: filter[shmack]=${value}, skip ${skip}${descending ? ', sort=-_id' : ''}`
      )
    }
  })
}
