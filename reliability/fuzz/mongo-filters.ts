// MongoDB filters and update documents for the fuzz (/query, /bulkwrite,
// $match): field paths of the model and hostile keys, every operator (and some
// that are not supported), values of every type, limits exceeded on purpose
// ($in with 1,200 values, 250 terms, $and chains 40 deep).
import type { Model } from '../../src/models/model-definition.ts'
import type { Choice } from './random-choice.ts'
import { obj, type Json } from './json-text.ts'

const COMPARISONS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte']
const UNSUPPORTED = [
  '$where',
  '$expr',
  '$text',
  '$mod',
  '$jsonSchema',
  '$geoWithin',
  '$function',
  '$comment',
  '$rand',
  '$bitsAllSet'
]
const TYPE_NAMES = [
  'string',
  'number',
  'array',
  'object',
  'bool',
  'null',
  'date',
  'constructor',
  '__proto__',
  'toString',
  'int',
  2,
  -1
]

/** A field path of the model (dotted into objects and arrays), a system field, or a hostile key. */
export function fieldPath(c: Choice, model: Model): string {
  const paths = Object.entries(model.fields).flatMap(([name, spec]) => [
    name,
    ...Object.keys(spec.properties ?? {}).map(p => `${name}.${p}`),
    ...(spec.type === 'array' ? [`${name}.0`] : [])
  ])
  return c.weighted([
    [6, () => c.pick(paths)],
    [2, () => c.pick(['_id', 'id', '_deleted', '_owner_id', 'createdAt', 'updatedAt', '__v'])],
    [2, () => c.pick([...c.pools.strings.slice(0, 120), '__proto__', 'constructor', 'a.__proto__.b', 'x'.repeat(600)])]
  ])
}

function operatorValue(c: Choice, model: Model, depth: number): Json {
  const values = (n: number): Json[] => Array.from({ length: n }, () => (n > 10 ? c.string() : c.value()))
  return c.weighted<Json>([
    [5, () => obj([[c.pick(COMPARISONS), c.value()]])],
    [
      2,
      () =>
        obj([
          ['$gt', c.value()],
          ['$lt', c.value()]
        ])
    ],
    [
      3,
      () =>
        obj([
          [c.pick(['$in', '$nin', '$all']), c.chance(0.1) ? values(c.pick([1000, 1001, 1200])) : values(c.int(0, 6))]
        ])
    ],
    [2, () => obj([['$exists', c.pick<Json>([true, false, 'yes', 0, null])]])],
    [2, () => obj([['$type', c.pick(TYPE_NAMES)]])],
    [
      3,
      () =>
        obj([
          ['$regex', c.sometimesLong(10_000)],
          ...(c.chance(0.5)
            ? [['$options', c.pick(['i', 'm', 's', 'x', 'g', 'imsx', 'z', c.string()])] as [string, Json]]
            : [])
        ])
    ],
    [2, () => obj([['$size', c.pick<Json>([0, 1, -1, 1.5, '2', 2 ** 40])]])],
    [2, () => obj([['$elemMatch', depth < 3 ? filter(c, model, depth + 1) : c.value()]])],
    [2, () => obj([['$not', c.chance(0.7) && depth < 3 ? operatorValue(c, model, depth + 1) : c.value()]])],
    [2, () => obj([[c.pick(UNSUPPORTED), c.value()]])],
    [
      1,
      () =>
        obj([
          [c.pick(COMPARISONS), c.value()],
          ['$foo', 1]
        ])
    ]
  ])
}

/** `depth` $and levels, one inside the other (the limit is 8). */
function chain(c: Choice, model: Model, depth: number): Json {
  let inner: Json = obj([[fieldPath(c, model), c.value()]])
  for (let i = 0; i < depth; i++) inner = obj([['$and', [inner]]])
  return inner
}

/** A MongoDB filter: mostly sound in shape, hostile in detail; a few exceed the term and depth limits. */
export function filter(c: Choice, model: Model, depth = 0): Json {
  if (depth === 0 && c.chance(0.02)) return chain(c, model, c.pick([8, 9, 12, 40]))
  const term = (): [string, Json] =>
    c.weighted<[string, Json]>([
      [6, () => [fieldPath(c, model), c.chance(0.4) ? c.value() : operatorValue(c, model, depth)]],
      [
        depth < 3 ? 2 : 0,
        () => [
          c.pick(['$and', '$or', '$nor']),
          c.chance(0.9) ? Array.from({ length: c.int(0, 2) }, () => filter(c, model, depth + 1)) : c.value()
        ]
      ],
      [1, () => [c.pick(['$not', ...UNSUPPORTED]), c.value()]],
      [1, () => [c.pick(['__proto__', 'constructor']), obj([['$ne', null]])]]
    ])
  const terms = depth === 0 && c.chance(0.03) ? c.pick([200, 201, 250]) : c.int(0, depth === 0 ? 3 : 2)
  return obj(Array.from({ length: terms }, term))
}

/** An update document for bulk updateOne/updateMany: operators, some unsupported or aimed at system fields. */
export function update(c: Choice, model: Model, validSet: () => Json): Json {
  const ops = [
    '$set',
    '$unset',
    '$inc',
    '$push',
    '$pull',
    '$addToSet',
    '$rename',
    '$setOnInsert',
    '$mul',
    '$min',
    '$currentDate',
    '$bit',
    '$where'
  ]
  return c.weighted<Json>([
    [4, () => obj([['$set', validSet()]])],
    [
      4,
      () =>
        obj([
          [
            c.pick(ops),
            obj([[fieldPath(c, model), c.chance(0.3) ? obj([['$each', [c.value(), c.value()]]]) : c.value()]])
          ]
        ])
    ],
    [1, () => obj([['$set', obj([[c.pick(['_id', '__v', '_owner_id', 'createdAt', '_deleted']), c.value()]])]])],
    [1, () => c.pick<Json>([[], [obj([['$set', obj([['foo', 1]])]])], obj([]), obj([['foo', 'plain']]), 'x', null])]
  ])
}
