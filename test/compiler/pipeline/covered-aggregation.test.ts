// Covering indexes for aggregations (src/compiler/ddl/covering-columns.ts, compile-covered-group.ts):
// a model whose index declares `include` answers $match + $group on covered fields from its
// columns (an index-only scan on PostgreSQL), with exactly the results the same pipeline gives on
// a model without it; anything the columns do not hold falls back to the documents. On PostgreSQL.
import t from 'tap'
import { openPostgres } from '../../../src/storage/postgres/postgres-client.ts'
import { createSqlEngine } from '../../../src/storage/sql/sql-engine.ts'
import { pipelineContextFor } from '../../../src/storage/sql/pipeline-context.ts'
import type { Doc } from '../../../src/storage/engine.ts'
import { authorized } from '../../../src/permissions/authorized.ts'
import { parseModelFile } from '../../../src/models/load-models.ts'
import type { Model } from '../../../src/models/model-definition.ts'
import { compilePipeline } from '../../../src/compiler/pipeline/compile-pipeline.ts'
import type { SqlClient } from '../../../src/storage/sql/sql-client.ts'
import { databaseUrl, ENGINES, type EngineName } from '../../helpers/test-app.ts'

const FIELDS = {
  cat: { type: 'string' },
  n: { type: 'number' },
  i: { type: 'integer' },
  flag: { type: 'boolean' },
  day: { type: 'date' },
  tags: { type: 'array', items: { type: 'string' } },
  obj: { type: 'object', properties: { s: { type: 'string', maxLength: 20 }, v: { type: 'number' } } },
  long: { type: 'string' },
  secret: { type: 'password' }
}
const INCLUDE = ['obj.s', 'obj.v', 'n', 'i', 'flag', 'day', '_owner_id']
const OWNERS = ['a'.repeat(24), 'b'.repeat(24)]

function modelOf(name: string, index: object): Model {
  return parseModelFile(JSON.stringify({ name, fields: FIELDS, indexes: [index] }), `${name}.json`)
}

const covered = modelOf('covered', { fields: ['cat'], include: INCLUDE })
const plain = modelOf('plain', { fields: ['cat'] })

/** 600 documents: every kind of value a covered field can hold, missing and null ones, deleted ones. */
function documents(): Doc[] {
  return Array.from({ length: 600 }, (_, k) => {
    const id = k.toString(16).padStart(24, '0')
    return {
      _id: id,
      id,
      _deleted: k % 13 === 0,
      _owner_id: OWNERS[k % 2],
      cat: `c${k % 7}`,
      ...(k % 11 !== 0 && { n: k % 17 === 0 ? null : (k % 9) * 0.25 }),
      i: k % 5,
      flag: k % 3 === 0,
      day: `2026-01-${String(1 + (k % 9)).padStart(2, '0')}T00:00:00.000Z`,
      tags: [`t${k % 4}`],
      obj: k % 10 === 0 ? {} : { s: `s${k % 4}`, v: k % 6 === 0 ? null : (k % 8) * 0.5 },
      secret: '$2a$04$hash'
    }
  })
}

/** Pipelines the covering columns answer. */
const COVERED: unknown[][] = [
  [
    { $match: { cat: 'c1' } },
    { $group: { _id: '$obj.s', total: { $sum: '$obj.v' }, n: { $sum: 1 }, avg: { $avg: '$n' }, c: { $count: {} } } }
  ],
  [{ $match: { cat: { $in: ['c1', 'c2'] } } }, { $group: { _id: '$cat', s: { $sum: '$i' } } }, { $sort: { _id: 1 } }],
  [{ $group: { _id: null, s: { $sum: '$n' }, a: { $avg: '$n' } } }],
  [{ $match: { cat: 'none' } }, { $group: { _id: null, c: { $count: {} } } }],
  [{ $match: { cat: 'c2', flag: true } }, { $group: { _id: '$flag', s: { $sum: 2.5 }, a: { $avg: '$obj.v' } } }],
  [{ $match: { day: { $gte: '2026-01-05T00:00:00.000Z' } } }, { $group: { _id: '$day', c: { $count: {} } } }],
  [{ $match: { cat: 'c3' } }, { $group: { _id: '$n', c: { $count: {} } } }],
  [
    { $match: { cat: 'c4', i: { $gt: 1 } } },
    { $group: { _id: '$i', c: { $count: {} } } },
    { $match: { c: { $gt: 1 } } }
  ]
]

/** Pipelines that read something the columns do not hold: compiled over the documents. */
const UNCOVERED: unknown[][] = [
  [{ $match: { cat: 'c1' } }, { $group: { _id: '$tags', c: { $count: {} } } }],
  [{ $match: { cat: { $regex: '^c1' } } }, { $group: { _id: '$obj.s', t: { $sum: '$obj.v' } } }],
  [{ $match: { cat: 'c1' } }, { $group: { _id: '$obj.s', m: { $max: '$obj.v' } } }],
  [{ $match: { cat: 'c1' } }, { $group: { _id: '$obj.s', t: { $sum: '$cat' } } }],
  [{ $match: { tags: 't1' } }, { $group: { _id: '$obj.s', c: { $count: {} } } }]
]

function planOf(stages: unknown[], owner?: string): Parameters<ReturnType<typeof createSqlEngine>['aggregate']>[1] {
  return authorized({
    stages,
    filter: { _deleted: false, ...(owner !== undefined && { _owner_id: owner }) },
    lookups: new Map()
  })
}

function sorted(json: string): unknown[] {
  return (JSON.parse(json) as unknown[])
    .map(d => JSON.stringify(d))
    .sort()
    .map(d => JSON.parse(d) as unknown)
}

async function openClient(engine: EngineName): Promise<SqlClient> {
  return openPostgres(await databaseUrl(engine), 60_000)
}

interface PlanNode {
  'Node Type': string
  'Index Name'?: string
  Strategy?: string
  Plans?: PlanNode[]
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)]

for (const engine of ENGINES) {
  t.test(`${engine}: covered aggregations read the columns and give the documents' results`, async t => {
    const client = await openClient(engine)
    t.teardown(() => client.close())
    const sql = createSqlEngine(client)
    await sql.syncModels([covered, plain])
    await sql.insertMany(covered, documents())
    await sql.insertMany(plain, documents())
    for (const stages of [...COVERED, ...UNCOVERED]) {
      const isCovered = COVERED.includes(stages)
      const { text } = compilePipeline(stages, pipelineContextFor(covered, planOf(stages)))
      t.equal(
        /\bt1\.doc\b/.test(text),
        !isCovered,
        `${JSON.stringify(stages)} ${isCovered ? 'reads only columns' : 'reads the documents'}`
      )
      const [fromColumns, fromDocuments] = [
        await sql.aggregate(covered, planOf(stages)),
        await sql.aggregate(plain, planOf(stages))
      ]
      t.same(sorted(fromColumns), sorted(fromDocuments), `${JSON.stringify(stages)}: the same results`)
    }
    t.ok(sorted(await sql.aggregate(covered, planOf(COVERED[0]))).length > 1, 'the first pipeline has several groups')
    const ownOnly = planOf(COVERED[0], OWNERS[1])
    t.notMatch(
      compilePipeline(COVERED[0], pipelineContextFor(covered, ownOnly)).text,
      /\bt1\.doc\b/,
      'an owner-only caller reads only columns too'
    )
    t.same(
      sorted(await sql.aggregate(covered, ownOnly)),
      sorted(await sql.aggregate(plain, planOf(COVERED[0], OWNERS[1]))),
      'with the same results'
    )
    t.not(
      await sql.aggregate(covered, ownOnly),
      await sql.aggregate(covered, planOf(COVERED[0])),
      "which are the owner's documents only"
    )
  })

  t.test(`${engine}: the covering index answers $match + $group alone`, async t => {
    const client = await openClient(engine)
    t.teardown(() => client.close())
    const sql = createSqlEngine(client)
    await sql.syncModels([covered])
    await client.exec(
      "INSERT INTO q_covered SELECT lpad(to_hex(g), 24, '0'), jsonb_build_object('_deleted', false, " +
        "'cat', 'c' || (g % 200), 'obj', jsonb_build_object('s', 's' || (g % 3), 'v', g % 100), 'filler', " +
        "repeat('x', 500)) FROM generate_series(1, 20000) g"
    )
    await client.exec('ANALYZE q_covered')
    const stages = [{ $match: { cat: 'c7' } }, { $group: { _id: '$obj.s', total: { $sum: '$obj.v' } } }]
    const { text, values } = compilePipeline(stages, pipelineContextFor(covered, planOf(stages)))
    // The planner prefers the index-only scan once the visibility map covers the table (autovacuum's
    // work, whose timing a test cannot rely on): the other scans are turned off, and an index-only
    // scan is still only possible when the statement reads nothing but the index's columns.
    const [row] = await client.transaction(async tx => {
      await tx.exec('SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off')
      return await tx.query(`EXPLAIN (FORMAT JSON) ${text}`, values)
    })
    const plan = (typeof row['QUERY PLAN'] === 'string' ? JSON.parse(row['QUERY PLAN']) : row['QUERY PLAN']) as Array<{
      Plan: PlanNode
    }>
    const nodes = nodesOf(plan[0].Plan)
    t.ok(
      nodes.some(node => node['Node Type'] === 'Index Only Scan'),
      `an index-only scan: ${JSON.stringify(plan[0].Plan)}`
    )
    // The index holds live documents only and sorts each value of its fields by the first included
    // one: the scan checks no soft-delete flag per entry, and the groups stream out in index order.
    t.notOk(
      nodes.some(node => node['Node Type'] === 'Sort' || node.Strategy === 'Hashed'),
      `the groups stream in index order: ${JSON.stringify(plan[0].Plan)}`
    )
    t.notMatch(
      JSON.stringify(plan[0].Plan),
      /gc_[0-9a-f]+ = 'false'/,
      "the soft-delete flag is the index's predicate, not a condition checked per entry"
    )
    t.same(sorted(await sql.aggregate(covered, planOf(stages))).length, 3, 'three groups')
  })

  t.test(`${engine}: dropping include drops the covering columns and index`, async t => {
    const client = await openClient(engine)
    t.teardown(() => client.close())
    const columns = async (): Promise<string[]> =>
      (
        await client.query(
          "SELECT column_name AS c FROM information_schema.columns WHERE table_name = 'q_covered' AND " +
            "column_name LIKE 'gc\\_%' ORDER BY 1"
        )
      ).map(r => r.c as string)
    const indexes = async (): Promise<number> =>
      (
        await client.query(
          "SELECT count(*)::int AS n FROM pg_indexes WHERE tablename = 'q_covered' AND indexname LIKE 'qx\\_%'"
        )
      )[0].n as number
    await createSqlEngine(client).syncModels([covered])
    const [withInclude, indexCount] = [await columns(), await indexes()]
    t.equal(
      withInclude.length,
      12,
      'cat, _deleted, obj.s, day, flag and _owner_id hold one column each; obj.v, n and i two (value, float8)'
    )
    await createSqlEngine(client).syncModels([modelOf('covered', { fields: ['cat'] })])
    t.same(await columns(), [], 'no generated columns left')
    t.equal(await indexes(), indexCount - 1, 'the covering index is gone, the others stay')
  })
}

t.test('include takes only declared scalar fields, never passwords, and strings of a bounded length', async t => {
  t.throws(
    () => modelOf('bad', { fields: ['cat'], include: ['tags'] }),
    /covering index field tags is not a declared string, date, number, integer or boolean field/
  )
  t.throws(
    () => modelOf('bad', { fields: ['cat'], include: ['secret'] }),
    /covering index field secret is a password field/
  )
  t.throws(() => modelOf('bad', { fields: ['obj'], include: ['n'] }), /covering index field obj is not a declared/)
  t.throws(
    () => modelOf('bad', { fields: ['cat'], include: ['missing'] }),
    /covering index field missing is not a declared/
  )
  t.throws(
    () => modelOf('bad', { fields: ['cat'], include: ['long', 'n'] }),
    /the string fields a covering index includes \(long\) need a maxLength, 500 characters at most together/
  )
  t.ok(
    modelOf('good', { fields: ['long'], include: ['obj.s'] }),
    "the index's own fields need none (its keys are indexed as before)"
  )
})
