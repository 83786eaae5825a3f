// Aggregation pipelines for the fuzz: every supported stage with hostile
// arguments, unsupported and forbidden stages ($out, $merge, $where), lookups
// into every model and into names that are not models, nesting past the limits,
// and expressions that overflow or divide by zero.
import type { Model } from '../../src/models/model-definition.ts'
import type { Choice } from './random-choice.ts'
import { obj, type Json } from './json-text.ts'
import { fieldPath, filter } from './mongo-filters.ts'

const ACCUMULATORS = [
  '$sum',
  '$avg',
  '$min',
  '$max',
  '$first',
  '$last',
  '$push',
  '$addToSet',
  '$count',
  '$stdDevPop',
  '$mergeObjects'
]
const OPERATORS = [
  '$add',
  '$subtract',
  '$multiply',
  '$divide',
  '$mod',
  '$round',
  '$abs',
  '$concat',
  '$substr',
  '$toLower',
  '$toUpper',
  '$size',
  '$cond',
  '$ifNull',
  '$in',
  '$arrayElemAt',
  '$year',
  '$dateToString',
  '$eq',
  '$gt',
  '$and',
  '$or',
  '$not',
  '$literal',
  '$toString',
  '$pow',
  '$exp',
  '$function'
]

function expression(c: Choice, model: Model, depth = 0): Json {
  return c.weighted<Json>([
    [4, () => `$${fieldPath(c, model)}`],
    [2, () => c.value()],
    [
      1,
      () =>
        c.pick(['$$ROOT', '$$CURRENT', '$$REMOVE', '$$NOW', '$$foo', '$', '$$', '$__proto__', '$constructor.prototype'])
    ],
    [
      depth < 4 ? 4 : 0,
      () => obj([[c.pick(OPERATORS), Array.from({ length: c.int(0, 3) }, () => expression(c, model, depth + 1))]])
    ],
    [1, () => obj([['$multiply', [1.7976931348623157e308, 10, `$${fieldPath(c, model)}`]]])],
    [1, () => obj([['$divide', [1, 0]]])]
  ])
}

function stage(c: Choice, model: Model, models: Model[], depth: number): Json {
  const sub = (): Json[] => (depth < 3 ? pipeline(c, model, models, depth + 1) : [obj([['$limit', 1]])])
  const from = (): Json =>
    c.chance(0.8)
      ? c.pick(models).name
      : c.pick([...c.pools.strings.slice(0, 80), '_credential', 'pg_catalog.pg_user', 'q_user'])
  return c.weighted<Json>([
    [4, () => obj([['$match', filter(c, model)]])],
    [
      3,
      () =>
        obj([
          [
            '$group',
            obj([
              ['_id', expression(c, model)],
              [c.pick(['n', 'total', '__proto__', 'a.b', '$x']), obj([[c.pick(ACCUMULATORS), expression(c, model)]])]
            ])
          ]
        ])
    ],
    [
      3,
      () =>
        obj([['$sort', obj([[fieldPath(c, model), c.pick<Json>([1, -1, 0, 'asc', obj([['$meta', 'textScore']])])]])]])
    ],
    [
      2,
      () =>
        obj([
          [c.pick(['$limit', '$skip', '$sample']), c.pick<Json>([0, 1, 10, -1, 1.5, 2 ** 53, '5', obj([['size', 3]])])]
        ])
    ],
    [
      3,
      () =>
        obj([
          [
            c.pick(['$project', '$addFields', '$set']),
            obj([[fieldPath(c, model), c.chance(0.5) ? c.pick<Json>([0, 1, true]) : expression(c, model)]])
          ]
        ])
    ],
    [1, () => obj([['$unset', c.chance(0.5) ? fieldPath(c, model) : [fieldPath(c, model), c.value()]]])],
    [
      2,
      () =>
        obj([
          [
            '$unwind',
            c.chance(0.7)
              ? `$${fieldPath(c, model)}`
              : obj([
                  ['path', expression(c, model)],
                  ['preserveNullAndEmptyArrays', c.value()]
                ])
          ]
        ])
    ],
    [1, () => obj([['$count', c.pick<Json>(['n', '', '$x', 'a.b', 5, '__proto__'])]])],
    [
      3,
      () =>
        obj([
          [
            '$lookup',
            obj([
              ['from', from()],
              ['localField', fieldPath(c, model)],
              ['foreignField', c.pick(['_id', 'link_id', '_deleted', fieldPath(c, model)])],
              ['as', c.pick(['joined', 'a.b', '', '__proto__', '_id'])]
            ])
          ]
        ])
    ],
    [
      2,
      () =>
        obj([
          [
            '$lookup',
            obj([
              ['from', from()],
              ['let', obj([['x', expression(c, model)]])],
              ['pipeline', sub()],
              ['as', 'joined']
            ])
          ]
        ])
    ],
    [
      1,
      () =>
        obj([
          [
            c.pick(['$replaceRoot', '$replaceWith']),
            c.chance(0.5) ? obj([['newRoot', expression(c, model)]]) : expression(c, model)
          ]
        ])
    ],
    [
      2,
      () =>
        obj([
          [
            '$facet',
            obj(
              depth === 0 && c.chance(0.1)
                ? Array.from({ length: 12 }, (_, i) => [`f${i}`, [obj([['$limit', 1]])]])
                : Array.from({ length: c.int(0, 3) }, (_, i) => [`f${i}`, sub()])
            )
          ]
        ])
    ],
    [1, () => obj([['$sortByCount', expression(c, model)]])],
    [
      1,
      () =>
        obj([
          [
            c.pick([
              '$out',
              '$merge',
              '$where',
              '$function',
              '$graphLookup',
              '$unionWith',
              '$indexStats',
              '$collStats',
              '$currentOp',
              '$listSessions',
              '$densify',
              '$foo',
              ''
            ]),
            c.value()
          ]
        ])
    ],
    [
      1,
      () =>
        c.pick<Json>([
          obj([]),
          obj([
            ['$match', obj([])],
            ['$limit', 1]
          ]),
          [],
          'stage',
          null,
          5
        ])
    ]
  ])
}

export function pipeline(c: Choice, model: Model, models: Model[], depth = 0): Json[] {
  if (depth === 0 && c.chance(0.02))
    return Array.from({ length: c.pick([50, 51, 60]) }, () =>
      obj([['$match', obj([[fieldPath(c, model), c.value()]])]])
    )
  return Array.from({ length: c.int(0, depth === 0 ? 5 : 2) }, () => stage(c, model, models, depth))
}
