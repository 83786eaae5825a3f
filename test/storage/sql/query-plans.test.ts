// The plans PostgreSQL chooses for paged lists: a filter on an indexed field, or a sort
// on one, reads the page's rows from the index in order and stops after `limit`, instead of
// sorting every match; equality on a field without an index of its own (an array's element, a
// nested field) reads the collection's GIN index instead of scanning every document. Plans are the
// generic ones a prepared statement settles on (values unknown), except for the GIN forms, which
// are planned for their values at each run (a generic plan would walk the primary key for them).
import t from 'tap'
import { openPostgres } from '../../../src/storage/postgres/postgres-client.ts'
import { createSqlEngine } from '../../../src/storage/sql/sql-engine.ts'
import type { Engine } from '../../../src/storage/engine.ts'
import { authorized } from '../../../src/permissions/authorized.ts'
import type { PlainQuery } from '../../helpers/unchecked-engine.ts'
import { loadModels } from '../../../src/models/load-models.ts'
import { compileFind } from '../../../src/compiler/find/compile-find.ts'
import { quoteLiteral } from '../../../src/compiler/sql-text.ts'
import type { SqlClient } from '../../../src/storage/sql/sql-client.ts'
import type { Filter } from '../../../src/query/types.ts'
import { databaseUrl, ENGINES, type EngineName } from '../../helpers/test-app.ts'

const DOCS = 20_000
const FOO_VALUES = 500
const models = loadModels(new URL('../../../models', import.meta.url).pathname)
const TEST = models.get('test')!

interface PlanNode {
  'Node Type': string
  'Index Name'?: string
  'Scan Direction'?: string
  'Index Cond'?: string
  Plans?: PlanNode[]
}

function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)]
}

async function openClient(engine: EngineName): Promise<SqlClient> {
  return openPostgres(await databaseUrl(engine), 60_000)
}

/** The sample models' tables, with DOCS live `test` documents whose `foo` takes FOO_VALUES values. */
async function seed(engine: Engine, client: SqlClient): Promise<void> {
  await engine.syncModels([...models.values()])
  const id = "lpad(to_hex(g), 24, '0')"
  await client.exec(
    `INSERT INTO q_test SELECT ${id}, jsonb_build_object('_id', ${id}, 'id', ${id}, '_deleted', false, ` +
      `'_owner_id', null, 'foo', 'foo-' || (g % ${FOO_VALUES}), 'bar', md5(g::text), 'createdAt', ` +
      `'2026-01-01T00:00:00.000Z', '__v', 0, ` +
      `'shmack', jsonb_build_array('w' || (g % 1000), 'common'), 'yack', jsonb_build_object('s', 's' || ` +
      `(g % 2000), 'n', g)) ` +
      `FROM generate_series(1, ${DOCS}) g`
  )
  await engine.refreshStatistics(TEST)
}

/** The generic plan of a list query, from inside the page's LIMIT node. */
async function pagePlan(client: SqlClient, query: Partial<PlainQuery>): Promise<PlanNode[]> {
  const find = compileFind(TEST, {
    sort: [],
    populate: [],
    limit: 10,
    skip: 0,
    count: false,
    ...query,
    filter: authorized(query.filter ?? { _deleted: false })
  })
  const args = find.values.map(v => quoteLiteral(String(v))).join(', ')
  return await client.transaction(async tx => {
    await tx.exec("SET LOCAL plan_cache_mode = 'force_generic_plan'")
    await tx.exec(`PREPARE page_plan AS ${find.text}`)
    const [row] = await tx.query(`EXPLAIN (FORMAT JSON) EXECUTE page_plan(${args})`)
    await tx.exec('DEALLOCATE page_plan')
    const plan = row['QUERY PLAN'] as Array<{ Plan: PlanNode }> | string
    const root = (typeof plan === 'string' ? JSON.parse(plan) : plan)[0].Plan
    const limit = nodesOf(root).find(n => n['Node Type'] === 'Limit')
    if (!limit) throw new Error(`no Limit node in ${JSON.stringify(root)}`)
    return nodesOf(limit)
  })
}

/**
 * The plan of a list query as it runs when compileFind asks for a plan per values (bound values, no prepared
 * statement).
 */
async function valuesPlan(client: SqlClient, filter: Filter): Promise<PlanNode[]> {
  const find = compileFind(TEST, {
    sort: [],
    populate: [],
    limit: 10,
    skip: 0,
    count: false,
    filter: authorized(filter)
  })
  if (find.planForValues !== true) throw new Error(`no plan per values asked for ${find.text}`)
  const [row] = await client.query(`EXPLAIN (FORMAT JSON) ${find.text}`, find.values, { planForValues: true })
  const plan = row['QUERY PLAN'] as Array<{ Plan: PlanNode }> | string
  return nodesOf((typeof plan === 'string' ? JSON.parse(plan) : plan)[0].Plan)
}

function indexScans(nodes: PlanNode[]): PlanNode[] {
  return nodes.filter(n => n['Node Type'] === 'Index Scan' && n['Index Name']?.startsWith('qx_test_'))
}

/** The GIN index scans of a plan (the document index is the one whose condition tests `doc`). */
function documentIndexScans(nodes: PlanNode[]): PlanNode[] {
  return nodes.filter(
    n =>
      n['Node Type'] === 'Bitmap Index Scan' &&
      n['Index Name']?.startsWith('qx_test_') &&
      /\bdoc @[>?]/.test(n['Index Cond'] ?? '')
  )
}

function sorts(nodes: PlanNode[]): string[] {
  return nodes.map(n => n['Node Type']).filter(type => type.includes('Sort'))
}

for (const engine of ENGINES) {
  t.test(`paged lists read declared indexes in page order on ${engine}`, async t => {
    const client = await openClient(engine)
    // The engine's close stops its change numbering (started by its writes) before the client closes.
    const sqlEngine = createSqlEngine(client)
    t.teardown(() => sqlEngine.close())
    await seed(sqlEngine, client)

    const filtered = await pagePlan(client, { filter: { _deleted: false, foo: 'foo-7' } })
    t.equal(indexScans(filtered).length, 1, 'filter[foo]=x&limit=10 walks the foo index')
    t.same(sorts(filtered), [], 'and sorts nothing: the index yields the matches in _id order')

    const descending = await pagePlan(client, { sort: [['foo', -1]] })
    t.match(indexScans(descending), [{ 'Scan Direction': 'Backward' }], 'sort=-foo reads the foo index backwards')
    t.same(sorts(descending), [], 'ties by _id follow the direction, so nothing is sorted')

    const both = await pagePlan(client, { filter: { _deleted: false, foo: 'foo-3' }, sort: [['_id', -1]] })
    t.match(
      indexScans(both),
      [{ 'Scan Direction': 'Backward' }],
      'a filter with sort=-_id reads the same index backwards'
    )
    t.same(sorts(both), [])

    // A range keeping a fifth of the rows: with the soft-delete statistics the planner knows that
    // walking the primary key finds ten matches at once (without them it sorts every match).
    const range = await pagePlan(client, { filter: { _deleted: false, foo: { $gte: 'foo-1', $lt: 'foo-2' } } })
    t.same(sorts(range), [], 'a wide range on an indexed field walks in page order too')

    const element = await valuesPlan(client, { _deleted: false, shmack: 'w7' })
    t.equal(documentIndexScans(element).length, 1, 'filter[shmack]=x (an array without an index) reads the GIN index')
    t.notOk(
      element.some(n => n['Node Type'] === 'Seq Scan'),
      'instead of scanning every document'
    )
    const nested = await valuesPlan(client, { _deleted: false, 'yack.s': 's7' })
    t.equal(documentIndexScans(nested).length, 1, 'filter[yack.s]=x (a declared field without an index) reads it too')
    const undeclared = await valuesPlan(client, { _deleted: false, 'yack.z': { $in: ['a', 'b'] } })
    const common = await valuesPlan(client, { _deleted: false, shmack: 'common' })
    t.equal(
      documentIndexScans(common).length,
      0,
      'a value every document holds walks the primary key instead, stopping after the page'
    )
    t.equal(documentIndexScans(undeclared).length, 1, '$in on an undeclared field reads it through one jsonpath')

    await sqlEngine.syncModels([...models.values()])
    const [stats] = await client.query(
      "SELECT count(*)::int AS n FROM pg_statistic_ext WHERE stxrelid = 'q_test'::regclass"
    )
    t.equal(stats.n, 1, 'syncing again keeps one statistics object on the table')
  })
}
