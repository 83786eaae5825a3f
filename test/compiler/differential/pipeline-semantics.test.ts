// Hand-written aggregation cases with MongoDB's results, run on a real PostgreSQL server (a
// throwaway cluster): the places where SQL (and mingo) differ from MongoDB unless told.
import t from 'tap'
import postgres from 'postgres'
import { startPgCluster } from '../../helpers/throwaway-cluster.ts'
import { compileItemsPipeline, itemsContext, resultKey, type Doc } from './pipeline-fixtures.ts'

const ITEMS: Doc[] = [
  { _id: 'a1', n: 1, s: 'Ab', tags: ['y', 'x'], o: { x: 1 }, d: '2024-05-01T12:30:45.123Z', ow: 'o1', nums: [3, 1] },
  { _id: 'a2', n: null, s: null, tags: [], o: [{ x: 2 }, 5, { y: 1 }], ow: ['o1', 'o2', 'o3'], nums: [] },
  { _id: 'a3', s: 'b', tags: 'z', d: 'not a date', nums: 2 },
  { _id: 'a4', n: 9, s: 'gone', _deleted: true }
]
const OWNERS: Doc[] = [
  { _id: 'o1', name: 'one', k: 1, rank: 1 },
  { _id: 'o2', name: 'two', k: [1, 5], rank: 2 },
  { _id: 'o3', name: 'three', k: 1, _deleted: true },
  { _id: 'o4', name: 'four', rank: 3 }
]

const ctx = itemsContext({ _deleted: { $ne: true } })

interface Case {
  name: string
  pipeline: unknown[]
  expected: Doc[]
  ordered?: boolean
}

const CASES: Case[] = [
  { name: 'soft-deleted documents are left out', pipeline: [{ $count: 'n' }], expected: [{ n: 3 }] },
  { name: '$count on no input gives no document', pipeline: [{ $match: { n: 42 } }, { $count: 'n' }], expected: [] },
  {
    name: '$eq tells missing from null',
    pipeline: [{ $project: { e: { $eq: ['$n', null] }, lt: { $lt: ['$n', 0] }, c: { $cmp: ['$s', 'B'] } } }],
    expected: [
      { _id: 'a1', e: false, lt: false, c: -1 },
      { _id: 'a2', e: true, lt: true, c: -1 },
      { _id: 'a3', e: false, lt: true, c: 1 }
    ]
  },
  {
    name: 'accumulators: $push skips missing values, $first keeps them as null, $sum and $avg numbers only',
    pipeline: [
      { $sort: { _id: 1 } },
      {
        $group: {
          _id: null,
          p: { $push: '$n' },
          f: { $first: '$d' },
          l: { $last: '$d' },
          t: { $sum: '$n' },
          a: { $avg: '$n' },
          mn: { $min: '$s' },
          mx: { $max: '$s' },
          c: { $count: {} },
          setS: { $addToSet: '$tags' }
        }
      }
    ],
    expected: [
      {
        _id: null,
        p: [1, null],
        f: '2024-05-01T12:30:45.123Z',
        l: 'not a date',
        t: 1,
        a: 1,
        mn: 'Ab',
        mx: 'b',
        c: 3,
        setS: [['y', 'x'], [], 'z']
      }
    ]
  },
  {
    name: '$group keys: missing groups with null, compound keys leave missing parts out',
    pipeline: [{ $group: { _id: { n: '$n' }, c: { $sum: 1 } } }],
    expected: [
      { _id: { n: 1 }, c: 1 },
      { _id: { n: null }, c: 1 },
      { _id: {}, c: 1 }
    ]
  },
  {
    name: 'date parts and $dateToString read ISO strings; other strings give null',
    pipeline: [
      {
        $project: {
          y: { $year: '$d' },
          h: { $hour: '$d' },
          ms: { $millisecond: '$d' },
          t: { $dateToString: { date: '$d', format: '%d/%m/%Y %H:%M:%S.%L %%' } },
          z: { $dateToString: { date: '$d', onNull: 'none' } }
        }
      }
    ],
    expected: [
      { _id: 'a1', y: 2024, h: 12, ms: 123, t: '01/05/2024 12:30:45.123 %', z: '2024-05-01T12:30:45.123Z' },
      { _id: 'a2', y: null, h: null, ms: null, t: null, z: 'none' },
      { _id: 'a3', y: null, h: null, ms: null, t: null, z: null }
    ]
  },
  {
    name: 'arithmetic: $round halves to even, division by zero gives null, $mod keeps the dividend sign',
    pipeline: [
      { $match: { _id: 'a1' } },
      {
        $project: {
          _id: 0,
          r: [
            { $round: [2.5] },
            { $round: [3.5] },
            { $round: [2.51] },
            { $round: [-2.5] },
            { $round: [1.25, 1] },
            { $round: [1234, -2] }
          ],
          d: { $divide: ['$n', 0] },
          m: { $mod: [-7, 3] },
          q: { $divide: [1, 4] },
          x: { $multiply: [{ $add: ['$n', 0.5] }, 2] }
        }
      }
    ],
    expected: [{ r: [2, 4, 3, -2, 1.2, 1200], d: null, m: -1, q: 0.25, x: 3 }]
  },
  {
    name: 'strings: $toLower of null is "", $substr with a negative length runs to the end, $concat of null is null',
    pipeline: [
      {
        $project: {
          l: { $toLower: '$s' },
          u: { $toUpper: '$s' },
          sub: { $substr: ['$s', 1, -1] },
          c: { $concat: ['$s', '-', '$_id'] }
        }
      }
    ],
    expected: [
      { _id: 'a1', l: 'ab', u: 'AB', sub: 'b', c: 'Ab-a1' },
      { _id: 'a2', l: '', u: '', sub: '', c: null },
      { _id: 'a3', l: 'b', u: 'B', sub: '', c: 'b-a3' }
    ]
  },
  {
    name: 'field paths through arrays, $size, $arrayElemAt, $in, $cond, $ifNull',
    pipeline: [
      {
        $project: {
          ox: '$o.x',
          oy: '$o.y',
          sz: { $size: { $ifNull: ['$nums', []] } },
          last: { $arrayElemAt: ['$tags', -1] },
          hasX: { $in: ['x', { $ifNull: ['$tags', []] }] },
          k: { $cond: { if: '$n', then: 'yes', else: 'no' } },
          nn: { $ifNull: ['$n', '$zz', 0] }
        }
      }
    ],
    expected: [
      { _id: 'a1', ox: 1, sz: 2, last: 'x', hasX: true, k: 'yes', nn: 1 },
      { _id: 'a2', ox: [2], oy: [1], sz: 0, hasX: false, k: 'no', nn: 0 },
      { _id: 'a3', sz: null, last: null, hasX: false, k: 'no', nn: 0 }
    ]
  },
  {
    name: '$sort: null and missing first, arrays by their smallest element, empty array before null',
    pipeline: [{ $sort: { nums: 1, _id: 1 } }, { $project: { nums: 1 } }],
    expected: [
      { _id: 'a2', nums: [] },
      { _id: 'a1', nums: [3, 1] },
      { _id: 'a3', nums: 2 }
    ],
    ordered: true
  },
  {
    name: '$sort descending uses the largest element',
    pipeline: [{ $sort: { nums: -1 } }, { $project: { _id: 1 } }],
    expected: [{ _id: 'a1' }, { _id: 'a3' }, { _id: 'a2' }],
    ordered: true
  },
  {
    name: '$unwind keeps order, preserves null and empty arrays on request, and indexes elements',
    pipeline: [
      { $sort: { _id: 1 } },
      { $unwind: { path: '$tags', preserveNullAndEmptyArrays: true, includeArrayIndex: 'i' } },
      { $project: { tags: 1, i: 1 } }
    ],
    expected: [
      { _id: 'a1', tags: 'y', i: 0 },
      { _id: 'a1', tags: 'x', i: 1 },
      { _id: 'a2', i: null },
      { _id: 'a3', tags: 'z', i: null }
    ],
    ordered: true
  },
  {
    name: '$addFields merges into objects, into array elements, and creates missing parents',
    pipeline: [{ $addFields: { 'o.z': 9, gone: '$missing' } }, { $project: { o: 1 } }],
    expected: [
      { _id: 'a1', o: { x: 1, z: 9 } },
      { _id: 'a2', o: [{ x: 2, z: 9 }, { z: 9 }, { y: 1, z: 9 }] },
      { _id: 'a3', o: { z: 9 } }
    ]
  },
  {
    name: '$project: inclusion through arrays, exclusion, computed fields',
    pipeline: [{ $project: { 'o.x': 1, n2: { $multiply: ['$n', 2] }, _id: 0 } }],
    expected: [{ o: { x: 1 }, n2: 2 }, { o: [{ x: 2 }, {}], n2: null }, { n2: null }]
  },
  {
    name: '$lookup on _id: local arrays match by element; unreadable targets are filtered',
    pipeline: [
      { $lookup: { from: 'owners', localField: 'ow', foreignField: '_id', as: 'j' } },
      { $project: { 'j.name': 1 } }
    ],
    expected: [
      { _id: 'a1', j: [{ name: 'one' }] },
      { _id: 'a2', j: [{ name: 'one' }, { name: 'two' }] },
      { _id: 'a3', j: [] }
    ]
  },
  {
    name: '$lookup on another field: foreign arrays match by element, null matches missing',
    pipeline: [
      { $lookup: { from: 'owners', localField: 'n', foreignField: 'k', as: 'j' } },
      { $project: { 'j._id': 1 } }
    ],
    expected: [
      { _id: 'a1', j: [{ _id: 'o1' }, { _id: 'o2' }] },
      { _id: 'a2', j: [{ _id: 'o4' }] },
      { _id: 'a3', j: [{ _id: 'o4' }] }
    ]
  },
  {
    name: '$lookup with let and a sorted pipeline; an inner $lookup sees the outer variables',
    pipeline: [
      { $match: { _id: 'a1' } },
      {
        $lookup: {
          from: 'owners',
          let: { min: '$n' },
          pipeline: [
            { $match: { $expr: { $gte: ['$rank', '$$min'] } } },
            { $sort: { rank: -1 } },
            { $limit: 2 },
            {
              $lookup: {
                from: 'items',
                let: { r: '$rank' },
                pipeline: [{ $match: { $expr: { $eq: ['$n', '$$min'] } } }, { $project: { _id: 1, r: '$$r' } }],
                as: 'back'
              }
            },
            { $project: { _id: 1, back: 1 } }
          ],
          as: 'lk'
        }
      },
      { $project: { lk: 1 } }
    ],
    expected: [
      {
        _id: 'a1',
        lk: [
          { _id: 'o4', back: [{ _id: 'a1', r: 3 }] },
          { _id: 'o2', back: [{ _id: 'a1', r: 2 }] }
        ]
      }
    ]
  },
  {
    name: '$lookup with localField/foreignField and a pipeline: the pipeline runs on the matches',
    pipeline: [
      {
        $lookup: {
          from: 'owners',
          localField: 'ow',
          foreignField: '_id',
          let: { s: '$s' },
          pipeline: [{ $project: { _id: 1, s: '$$s' } }],
          as: 'j'
        }
      },
      { $project: { j: 1 } }
    ],
    expected: [
      { _id: 'a1', j: [{ _id: 'o1', s: 'Ab' }] },
      {
        _id: 'a2',
        j: [
          { _id: 'o1', s: null },
          { _id: 'o2', s: null }
        ]
      },
      { _id: 'a3', j: [] }
    ]
  },
  {
    name: '$replaceRoot leaves out documents whose new root is not an object',
    pipeline: [{ $replaceRoot: { newRoot: '$o' } }],
    expected: [{ x: 1 }]
  },
  {
    name: '$facet and $sortByCount',
    pipeline: [
      {
        $facet: {
          byS: [{ $sortByCount: { $toLower: '$s' } }, { $sort: { count: -1, _id: 1 } }],
          total: [{ $count: 'n' }],
          none: [{ $match: { n: 42 } }, { $count: 'n' }]
        }
      }
    ],
    expected: [
      {
        byS: [
          { _id: '', count: 1 },
          { _id: 'ab', count: 1 },
          { _id: 'b', count: 1 }
        ],
        total: [{ n: 3 }],
        none: []
      }
    ]
  },
  {
    name: 'extended JSON dates and ids in a pipeline',
    pipeline: [
      { $match: { d: { $gte: { $date: '2024-01-01T00:00:00Z' }, $lt: { $date: 1735689600000 } } } },
      { $project: { _id: 1, at: { $literal: { $date: { $numberLong: '0' } } } } }
    ],
    expected: [{ _id: 'a1', at: '1970-01-01T00:00:00.000Z' }]
  }
]

t.test('aggregation semantics on PostgreSQL', async t => {
  const cluster = await startPgCluster()
  const sql = postgres(cluster.url, { onnotice: () => {}, max: 1 })
  t.teardown(async () => {
    await sql.end()
    await cluster.stop()
  })
  const engines: Array<[string, (text: string, values: unknown[]) => Promise<unknown[]>]> = [
    ['postgres', async (text, values) => (await sql.unsafe(text, values as never[])).map(r => Object.values(r)[0])]
  ]
  for (const [name, run] of engines) {
    for (const [model, docs] of [
      ['items', ITEMS],
      ['owners', OWNERS]
    ] as const) {
      await run(`CREATE TABLE q_${model} (_id text PRIMARY KEY, doc jsonb NOT NULL)`, [])
      await run(`INSERT INTO q_${model} SELECT e->>'_id', e FROM jsonb_array_elements($1::text::jsonb) AS e`, [
        JSON.stringify(docs)
      ])
    }
    for (const c of CASES) {
      const { text, values } = compileItemsPipeline(c.pipeline, ctx)
      const rows = await run(text, values)
      t.equal(resultKey(rows, c.ordered === true), resultKey(c.expected, c.ordered === true), `${name}: ${c.name}`)
    }
    const numbers = compileItemsPipeline(
      [
        { $group: { _id: null, t: { $sum: '$n' }, a: { $avg: '$n' } } },
        {
          $project: {
            _id: 0,
            t: 1,
            a: 1,
            q: { $divide: ['$t', 1] },
            h: { $divide: [3, 2] },
            m: { $multiply: [1.5, 2] }
          }
        }
      ],
      ctx
    )
    const [json] = await run(`SELECT x.doc::text FROM (${numbers.text}) x`, numbers.values)
    t.equal(json, '{"a": 1, "h": 1.5, "m": 3, "q": 1, "t": 1}', `${name}: integral results print as integers`)
    const sample = compileItemsPipeline([{ $sample: { size: 2 } }], ctx)
    t.equal((await run(sample.text, sample.values)).length, 2, `${name}: $sample`)
  }
})
