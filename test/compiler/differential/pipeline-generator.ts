// Seeded random aggregation pipelines for the differential test, kept inside what MongoDB
// and mingo define alike (docs/aggregation-differences.md lists where they part).
import { CATEGORIES, TAGS, WORDS, type Rng } from './pipeline-fixtures.ts'

type Kind = 'int' | 'num' | 'str' | 'bool' | 'date' | 'arr' | 'obj' | 'mixed'
/** A field the next stage may use; `always` fields are never missing or null. */
interface Field {
  path: string
  kind: Kind
  always: boolean
}
interface Shape {
  fields: Field[]
  /** Paths whose values identify a document (a sort on them is total), or null. */
  unique: string[] | null
  /** The documents are in a deterministic order. */
  sorted: boolean
  /** Documents still have the stored shape (base-only stages apply). */
  base: boolean
  /** No further stage is generated ($count, $facet, $sample). */
  final?: boolean
}

export interface GeneratedPipeline {
  stages: object[]
  ordered: boolean
  sampleSize?: number
}

const f = (path: string, kind: Kind, always = false): Field => ({ path, kind, always })
const BASE_FIELDS: Field[] = [
  f('_id', 'str', true),
  f('i', 'int', true),
  f('f', 'num', true),
  f('name', 'str', true),
  f('__v', 'int', true),
  f('createdAt', 'date', true),
  f('cat', 'str'),
  f('n', 'mixed'),
  f('s', 'str'),
  f('b', 'bool'),
  f('tags', 'arr'),
  f('nums', 'arr'),
  f('nested', 'obj'),
  f('nested.x', 'int'),
  f('nested.y', 'str'),
  f('items', 'arr'),
  f('d', 'date'),
  f('owner', 'str'),
  f('refs', 'arr')
]
const ARRAY_ELEMENTS: Record<string, Field[]> = {
  tags: [f('tags', 'str', true)],
  nums: [f('nums', 'int', true)],
  refs: [f('refs', 'str', true)],
  items: [f('items', 'obj', true), f('items.sku', 'str', true), f('items.q', 'int', true)]
}
const DATE_FORMATS = ['%Y-%m-%d', '%H:%M:%S.%L', '%Y/%m', '%d.%m.%Y %H'] as const
const DATE_PARTS = ['$year', '$month', '$dayOfMonth', '$hour', '$minute', '$second'] as const
const COMPARISONS = ['$gt', '$gte', '$lt', '$lte', '$eq', '$ne'] as const

export function createPipelineGenerator(rng: Rng) {
  const ref = (field: Field): string => `$${field.path}`
  const fieldsOf = (shape: Shape, kinds: Kind[], always = false): Field[] =>
    shape.fields.filter(x => kinds.includes(x.kind) && (x.always || !always))
  const pickRef = (shape: Shape, kinds: Kind[], always = false): string | undefined => {
    const found = fieldsOf(shape, kinds, always)
    return found.length === 0 ? undefined : ref(rng.pick(found))
  }
  const oneOf = <T>(options: Array<() => T | undefined>, fallback: () => T): T => rng.pick(options)() ?? fallback()

  function numExpr(shape: Shape, depth: number): unknown {
    const leaf = (): unknown => pickRef(shape, ['int', 'num']) ?? rng.int(-10, 10)
    if (depth >= 2) return leaf()
    const sub = (): unknown => numExpr(shape, depth + 1)
    const int = pickRef(shape, ['int'], true)
    return oneOf<unknown>(
      [
        leaf,
        leaf,
        () => ({ $add: [sub(), sub()] }),
        () => ({ $subtract: [sub(), sub()] }),
        () => ({ $multiply: [sub(), rng.int(-3, 3)] }),
        () => ({ $divide: [sub(), rng.pick([2, 4, -5, 0.5])] }),
        () => int && { $mod: [int, rng.int(2, 5)] },
        () => ({ [rng.pick(['$abs', '$floor', '$ceil'])]: sub() }),
        () => int && { $round: [{ $divide: [int, 2] }] },
        () => ({ $cond: [boolExpr(shape, depth + 1), sub(), sub()] }),
        () => ({ $ifNull: [leaf(), rng.int(0, 3)] }),
        () => (shape.base ? { $size: { $ifNull: [rng.pick(['$tags', '$nums']), []] } } : undefined),
        () => (shape.base ? { $arrayElemAt: [{ $ifNull: ['$nums', []] }, rng.int(-2, 3)] } : undefined),
        () => {
          const d = pickRef(shape, ['date'])
          return d && { [rng.pick(DATE_PARTS)]: d }
        },
        () => {
          const x = pickRef(shape, ['mixed', 'int', 'num', 'str'])
          return x && { $cmp: [x, rng.chance(0.5) ? rng.int(-5, 5) : rng.pick(WORDS)] }
        }
      ],
      leaf
    )
  }

  function strExpr(shape: Shape, depth: number): unknown {
    const leaf = (): unknown => pickRef(shape, ['str']) ?? rng.pick(WORDS)
    if (depth >= 2) return leaf()
    const always = pickRef(shape, ['str'], true)
    return oneOf<unknown>(
      [
        leaf,
        () => ({ $concat: [leaf(), rng.pick(['-', ' ', '']), strExpr(shape, depth + 1)] }),
        () => always && { [rng.pick(['$toLower', '$toUpper'])]: always },
        () => always && { $substrCP: [always, rng.int(0, 3), rng.int(0, 4)] },
        () => {
          const d = pickRef(shape, ['date'])
          return d && { $dateToString: { format: rng.pick(DATE_FORMATS), date: d } }
        },
        () => ({ $ifNull: [leaf(), 'none'] }),
        () => ({ $cond: { if: boolExpr(shape, depth + 1), then: leaf(), else: rng.pick(WORDS) } })
      ],
      leaf
    )
  }

  /** Order comparisons only between values of one type (mingo brackets types there; MongoDB does not). */
  function boolExpr(shape: Shape, depth: number): unknown {
    const numeric = (): unknown => {
      const x = pickRef(shape, ['int', 'num'], true)
      return x && { [rng.pick(COMPARISONS)]: [x, rng.int(-5, 10)] }
    }
    if (depth >= 2) return numeric() ?? true
    const sub = (): unknown => boolExpr(shape, depth + 1)
    return oneOf<unknown>(
      [
        numeric,
        numeric,
        () => {
          const x = pickRef(shape, ['str'])
          return x && { [rng.pick(['$eq', '$ne'])]: [x, rng.pick([...WORDS, ...CATEGORIES])] }
        },
        () => ({ [rng.pick(['$and', '$or'])]: [sub(), sub()] }),
        () => ({ $not: [sub()] }),
        () => {
          const x = pickRef(shape, ['str', 'int'])
          return x && { $in: [x, [rng.pick(CATEGORIES), rng.int(0, 9), rng.pick(TAGS)]] }
        },
        () => pickRef(shape, ['bool'])
      ],
      () => true
    )
  }

  function anyExpr(shape: Shape): [unknown, Kind] {
    return rng.pick<() => [unknown, Kind]>([
      () => [numExpr(shape, 0), 'num'],
      () => [strExpr(shape, 0), 'str'],
      () => [boolExpr(shape, 0), 'bool'],
      () => [{ p: numExpr(shape, 1), q: strExpr(shape, 1) }, 'obj'],
      () => [[numExpr(shape, 1), strExpr(shape, 1)], 'arr']
    ])()
  }

  function match(shape: Shape): [object, Shape] {
    const filters: Array<() => object | undefined> = shape.base
      ? [
          () => ({ i: { $gte: rng.int(0, 9) } }),
          () => ({ cat: rng.pick(CATEGORIES) }),
          () => ({ cat: { $in: ['a', 'b', null] } }),
          () => ({ n: { $gt: rng.int(-10, 10) } }),
          () => ({ tags: rng.pick(TAGS) }),
          () => ({ 'nested.x': { $lt: rng.int(0, 20) } }),
          () => ({ d: { $gte: `202${rng.int(0, 4)}-06-01T00:00:00.000Z` } }),
          () => ({ b: true }),
          () => ({ s: null }),
          () => ({ n: { $exists: false } }),
          () => ({ 'items.q': { $gte: rng.int(1, 9) } }),
          () => ({ name: { $regex: '^[a-e]', $options: 'i' } }),
          () => ({ $or: [{ cat: 'a' }, { i: { $lt: 3 } }] }),
          () => ({ $expr: boolExpr(shape, 0) })
        ]
      : [
          () => {
            const x = rng.pick(fieldsOf(shape, ['int', 'num', 'str', 'bool', 'mixed']).concat(f('_id', 'mixed')))
            return { [x.path]: { $ne: null } }
          },
          () => ({ $expr: boolExpr(shape, 0) })
        ]
    return [{ $match: rng.pick(filters)() }, shape]
  }

  function group(shape: Shape): [object, Shape] {
    const keys: Array<[unknown, Kind, boolean]> = [
      [null, 'mixed', true],
      [{ $mod: [pickRef(shape, ['int'], true) ?? 1, 3] }, 'int', true]
    ]
    for (const x of fieldsOf(shape, ['int', 'str', 'bool', 'mixed', 'date'])) keys.push([ref(x), x.kind, true])
    if (shape.base) keys.push([{ c: '$cat', b: '$b' }, 'obj', false])
    const [key, keyKind, scalar] = rng.pick(keys)
    const spec: Record<string, unknown> = { _id: key }
    const fields = [f('_id', keyKind)]
    const scalars = fieldsOf(shape, ['int', 'num', 'str', 'date', 'mixed', 'bool'])
    const always = fieldsOf(shape, ['int', 'num', 'str'], true)
    for (let k = rng.int(1, 3); k > 0; k--) {
      const [name, acc, declared] = rng.pick<() => [string, unknown, Kind | 'num?']>([
        () => ['sum', { $sum: rng.chance(0.3) ? 1 : (pickRef(shape, ['int', 'num', 'mixed']) ?? 1) }, 'num'],
        () => ['avg', { $avg: pickRef(shape, ['int', 'num', 'mixed']) ?? 1 }, 'num?'],
        () => [
          rng.pick(['min', 'max']),
          { [rng.pick(['$min', '$max'])]: scalars.length > 0 ? ref(rng.pick(scalars)) : 1 },
          'mixed'
        ],
        () => ['count', { $count: {} }, 'int'],
        () => [shape.sorted ? 'p' : 'set_p', { $push: always.length > 0 ? ref(rng.pick(always)) : 1 }, 'arr'],
        () => ['set_a', { $addToSet: scalars.length > 0 ? { $ifNull: [ref(rng.pick(scalars)), null] } : 1 }, 'arr'],
        () =>
          shape.sorted && always.length > 0
            ? [rng.pick(['first', 'last']), { [rng.pick(['$first', '$last'])]: ref(rng.pick(always)) }, 'mixed']
            : ['count', { $count: {} }, 'int']
      ])()
      if (spec[name] !== undefined) continue
      spec[name] = acc
      // $avg is null without numbers; $min, $max, $first and $last may be null too
      fields.push(declared === 'num?' ? f(name, 'num') : f(name, declared, declared !== 'mixed'))
    }
    return [{ $group: spec }, { fields, unique: scalar ? ['_id'] : null, sorted: false, base: false }]
  }

  function sort(shape: Shape): [object, Shape] {
    const candidates = fieldsOf(shape, ['int', 'num', 'str', 'bool', 'date', 'mixed'])
    const spec: Record<string, number> = {}
    for (let k = rng.int(1, 2); k > 0 && candidates.length > 0; k--) spec[rng.pick(candidates).path] = rng.pick([1, -1])
    for (const path of shape.unique ?? []) spec[path] ??= 1
    if (Object.keys(spec).length === 0) spec._id = 1
    return [{ $sort: spec }, { ...shape, sorted: shape.unique !== null }]
  }

  function project(shape: Shape): [object, Shape] {
    const spec: Record<string, unknown> = {}
    const overlaps = (path: string): boolean =>
      Object.keys(spec).some(k => k === path || path.startsWith(`${k}.`) || k.startsWith(`${path}.`))
    const picks = shape.fields.filter(x => rng.chance(0.3) && !x.path.startsWith('_id')).slice(0, 3)
    const hideId = rng.chance(0.3)
    if (rng.chance(0.25) && picks.length > 0) {
      for (const x of picks.slice(0, 2)) if (!overlaps(x.path)) spec[x.path] = 0
      const kept = shape.fields.filter(x => !Object.keys(spec).some(k => x.path === k || x.path.startsWith(`${k}.`)))
      if (hideId) spec._id = 0
      return [
        { $project: spec },
        keepUnique(
          shape,
          kept.filter(x => !(hideId && x.path === '_id'))
        )
      ]
    }
    const kept: Field[] = hideId ? [] : shape.fields.filter(x => x.path === '_id')
    for (const x of picks) {
      if (overlaps(x.path)) continue
      spec[x.path] = 1
      kept.push(x)
    }
    for (let k = rng.int(picks.length === 0 ? 1 : 0, 2); k > 0; k--) {
      const [expr, kind] = anyExpr(shape)
      spec[`c${k}`] = expr
      kept.push(f(`c${k}`, kind))
    }
    if (hideId) spec._id = 0
    return [{ $project: spec }, keepUnique(shape, kept)]
  }

  function keepUnique(shape: Shape, fields: Field[]): Shape {
    const unique = shape.unique?.every(p => fields.some(x => x.path === p)) === true ? shape.unique : null
    return { fields, unique, sorted: shape.sorted, base: false }
  }

  function addFields(shape: Shape): [object, Shape] {
    const spec: Record<string, unknown> = {}
    const fields = [...shape.fields]
    for (let k = rng.int(1, 2); k > 0; k--) {
      const [expr, kind] = anyExpr(shape)
      const name = shape.base && rng.chance(0.3) ? 'nested.z' : `a${k}`
      spec[name] = name === 'nested.z' ? { $ifNull: [expr, null] } : expr
      fields.push(f(name, kind))
    }
    return [{ [rng.pick(['$addFields', '$set'])]: spec }, { ...shape, fields, base: false }]
  }

  function unset(shape: Shape): [object, Shape] {
    const removable = shape.fields.filter(x => !(shape.unique ?? []).includes(x.path) && !x.path.includes('.'))
    if (removable.length === 0) return project(shape)
    const path = rng.pick(removable).path
    return [
      { $unset: [path] },
      { ...shape, fields: shape.fields.filter(x => x.path !== path && !x.path.startsWith(`${path}.`)), base: false }
    ]
  }

  function unwind(shape: Shape): [object, Shape] {
    const path = rng.pick(Object.keys(ARRAY_ELEMENTS))
    const short = rng.chance(0.3)
    const index = !short && rng.chance(0.4)
    const spec = short
      ? `$${path}`
      : {
          path: `$${path}`,
          preserveNullAndEmptyArrays: rng.chance(0.5),
          ...(index ? { includeArrayIndex: 'idx' } : {})
        }
    const fields = shape.fields
      .filter(x => x.path !== path && !x.path.startsWith(`${path}.`))
      .concat(ARRAY_ELEMENTS[path])
    if (index) fields.push(f('idx', 'int'))
    const unique = index && shape.unique !== null ? [...shape.unique, 'idx'] : null
    return [{ $unwind: spec }, { fields, unique, sorted: shape.sorted, base: false }]
  }

  /** $lookup forms; mingo runs a let+pipeline form once per document, so those come after a $match. */
  function lookup(shape: Shape): [object[], Shape] {
    const [stages, as] = rng.pick<() => [object[], string]>([
      () => [
        [{ $lookup: { from: 'owners', localField: rng.pick(['owner', 'refs']), foreignField: '_id', as: 'j' } }],
        'j'
      ],
      () => [
        [{ $lookup: { from: 'owners', localField: rng.pick(['i', 'n', 'nums']), foreignField: 'code', as: 'j' } }],
        'j'
      ],
      () => [
        [
          { $match: { i: { $lt: 3 } } },
          {
            $lookup: {
              from: 'owners',
              let: { o: '$owner' },
              pipeline: [{ $match: { $expr: { $eq: ['$_id', '$$o'] } } }, { $project: { name: 1, rank: 1 } }],
              as: 'j'
            }
          }
        ],
        'j'
      ],
      () =>
        rng.chance(0.5)
          ? [[{ $lookup: { from: 'owners', localField: 'owner', foreignField: '_id', as: 'j' } }], 'j']
          : [
              [
                { $match: { i: { $gte: 8 } } },
                {
                  $lookup: {
                    from: 'owners',
                    let: { k: '$i' },
                    pipeline: [
                      { $match: { $expr: { $lte: ['$rank', { $subtract: ['$$k', 5] }] } } },
                      { $sort: { rank: -1, _id: 1 } },
                      { $limit: 2 },
                      { $project: { _id: 1 } }
                    ],
                    as: 'lk'
                  }
                }
              ],
              'lk'
            ]
    ])()
    return [
      stages,
      { fields: [...BASE_FIELDS, f(as, 'arr', true)], unique: ['_id'], sorted: shape.sorted, base: false }
    ]
  }

  function facet(shape: Shape): [object, Shape] {
    const spec: Record<string, object[]> = {}
    for (let k = 1, count = rng.int(2, 3); k <= count; k++) {
      const sub = generateStages({ ...shape, final: false }, rng.int(1, 2), false)
      spec[sub.ordered ? `f${k}` : `set${k}`] = sub.stages
    }
    return [{ $facet: spec }, { fields: [], unique: null, sorted: true, base: false, final: true }]
  }

  function pickStage(shape: Shape, topLevel: boolean): [object | object[], Shape] {
    const options: Array<() => [object | object[], Shape]> = [
      () => match(shape),
      () => group(shape),
      () => group(shape),
      () => sort(shape),
      () => project(shape),
      () => addFields(shape),
      () => unset(shape)
    ]
    if (shape.sorted)
      options.push(
        () => [{ $limit: rng.int(1, 30) }, shape],
        () => [{ $skip: rng.int(0, 50) }, shape]
      )
    if (shape.base)
      options.push(
        () => unwind(shape),
        () => unwind(shape),
        () => lookup(shape),
        () => lookup(shape)
      )
    if (shape.base)
      options.push(() => [
        { $replaceRoot: { newRoot: { k: '$_id', v: numExpr(shape, 0), w: strExpr(shape, 0) } } },
        {
          fields: [f('k', 'str', true), f('v', 'num'), f('w', 'str')],
          unique: ['k'],
          sorted: shape.sorted,
          base: false
        }
      ])
    const key = pickRef(shape, ['int', 'str', 'bool'])
    if (key !== undefined)
      options.push(() => [
        { $sortByCount: key },
        { fields: [f('_id', 'mixed'), f('count', 'int', true)], unique: ['_id'], sorted: false, base: false }
      ])
    options.push(() => [
      { $count: 'cnt' },
      { fields: [f('cnt', 'int', true)], unique: ['cnt'], sorted: true, base: false, final: true }
    ])
    if (topLevel) options.push(() => facet(shape))
    return rng.pick(options)()
  }

  function generateStages(start: Shape, count: number, topLevel: boolean): GeneratedPipeline {
    const stages: object[] = []
    let shape = start
    while (stages.length < count && shape.final !== true) {
      const [stage, next] = pickStage(shape, topLevel)
      stages.push(...(Array.isArray(stage) ? stage : [stage]))
      shape = next
    }
    return { stages, ordered: shape.sorted }
  }

  /**
   * One pipeline of 1-4 stages. Often the last one is a $project of a few fields (whole
   * documents make the comparison slow, not the test stronger); one in twenty ends with
   * $sample, whose results only compare by size.
   */
  return function generatePipeline(): GeneratedPipeline {
    const start: Shape = { fields: BASE_FIELDS, unique: ['_id'], sorted: false, base: true }
    const generated = generateStages(start, rng.int(1, 3), true)
    const stages = generated.stages
    if (rng.chance(0.05)) {
      const sampleSize = rng.int(1, 20)
      return { stages: [...stages, { $sample: { size: sampleSize } }], ordered: false, sampleSize }
    }
    const last = stages[stages.length - 1] as Record<string, unknown>
    if (
      stages.length < 4 &&
      !('$count' in last || '$facet' in last || '$group' in last || '$sortByCount' in last) &&
      rng.chance(0.6)
    ) {
      stages.push({
        $project: Object.fromEntries(
          ['_id', 'i', 'cat', 'n', 'j', 'lk', 'a1', 'a2', 'nested', 'tags', 'c1', 'c2', 'k', 'v', 'w', 'idx']
            .filter(k => k === '_id' || rng.chance(0.5))
            .map(k => [k, 1])
        )
      })
    }
    return generated
  }
}

/**
 * Pipelines of the shape a covering index answers (src/compiler/pipeline/compile-covered-group.ts): filters on
 * scalar fields, then a $group by one of them (or null) with $sum, $avg and $count, sometimes a
 * stage after it; mixed-kind fields (`n`) now and then, which the columns must not answer.
 */
export function createCoveredGroupGenerator(rng: Rng): () => GeneratedPipeline {
  const filters: Array<() => object> = [
    () => ({ cat: rng.pick(CATEGORIES) }),
    () => ({ cat: { $in: [rng.pick(CATEGORIES), rng.pick(CATEGORIES)] } }),
    () => ({ i: { [rng.pick(COMPARISONS)]: rng.int(0, 9) } }),
    () => ({ b: rng.chance(0.5) }),
    () => ({ d: { $gte: `202${rng.int(0, 5)}-06-01T00:00:00.000Z` } }),
    () => ({ f: { $lt: rng.int(-50, 50) } }),
    () => ({ s: rng.chance(0.2) ? null : rng.pick(WORDS) }),
    () => ({ n: { $gt: 0 } })
  ]
  const keys = [null, '$cat', '$i', '$b', '$s', '$d', '$name', '$n']
  const accumulators: Array<() => object> = [
    () => ({ $sum: rng.pick([1, 2.5, '$i', '$f', '$n']) }),
    () => ({ $avg: rng.pick(['$i', '$f', 3, '$n']) }),
    () => ({ $count: {} })
  ]
  return () => {
    const stages: object[] = Array.from({ length: rng.int(0, 2) }, () => ({ $match: rng.pick(filters)() }))
    const group: Record<string, unknown> = { _id: rng.pick(keys) }
    for (let k = rng.int(1, 3); k > 0; k--) group[`a${k}`] = rng.pick(accumulators)()
    stages.push({ $group: group })
    if (rng.chance(0.3)) stages.push({ $match: { a1: { $ne: null } } })
    return { stages, ordered: false }
  }
}
