// Seeded generators of documents and filters for the SQL-vs-mingo differential test.
// Shapes stay inside what mingo evaluates like MongoDB (see docs/query-differences.md,
// "Oracle limits"): e.g. objects in arrays always carry the fields queried for null.
import type { FieldKind, Filter, Sort } from '../../../src/query/types.ts'
import type { Containment } from '../../../src/compiler/filter/compile-comparison.ts'

export type Rng = () => number

/** mulberry32: a small deterministic PRNG. */
export function makeRng(seed: number): Rng {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let r = Math.imul(a ^ (a >>> 15), 1 | a)
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296
  }
}

const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)]
const int = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1))
const chance = (rng: Rng, p: number): boolean => rng() < p
const times = <T>(n: number, make: () => T): T[] => Array.from({ length: n }, make)

/** Strings with quotes, backslashes, newlines and non-ASCII text (lowercase, BMP below U+E000 or emoji). */
const WORDS = [
  'apple',
  'Apple',
  'banana',
  'cherry',
  'ápple',
  'naïve',
  '日本',
  '😀 smile',
  'line1\nline2',
  'x\ny\nz',
  '',
  'a.b',
  'A',
  'zeta',
  'hello world',
  "O'Brien",
  'back\\slash',
  '"quoted"',
  'b',
  'ba',
  'ab',
  'Zebra',
  '10',
  '9'
]
const TAGS = ['red', 'green', 'blue', 'x', 'y', 'Red']
const SKUS = ['k1', 'k2', 'k3', 'K1', 'kk']
const DATES = Array.from({ length: 40 }, (_, i) =>
  new Date(Date.UTC(2024, 0, 1) + i * 7 * 3600e3 + i * 61e3).toISOString()
)
const number = (rng: Rng): number => (chance(rng, 0.8) ? int(rng, -5, 30) : int(rng, -40, 120) / 4)

/** Regular expressions whose meaning is the same in JavaScript, PCRE and PostgreSQL ARE on WORDS. */
const PATTERNS = [
  '^a',
  'a$',
  '^A',
  'an',
  'a.b',
  '^line1.line2$',
  'line2$',
  '^line2',
  '^y$',
  'e\\d?',
  '[aeiou]{2}',
  '[^a-z]',
  '^$',
  'ï|á',
  '(an){2}',
  'b(?=a)',
  'x(?!y)',
  '^[A-Z]',
  '\\bworld',
  'ap+le',
  'e.*e',
  '\\.',
  'O.B',
  '\\\\',
  '"',
  '^.{3,5}$',
  '\\s',
  'n.',
  '.',
  'z$',
  '^r',
  'e$',
  '^k\\d',
  '[^\\n]$',
  '1.l',
  '^.$'
]
const FLAGS = ['', '', 'i', 'm', 's', 'ms', 'im', 'is', 'ims']

function scalar(rng: Rng): unknown {
  return pick(rng, [
    () => number(rng),
    () => pick(rng, WORDS),
    () => chance(rng, 0.5),
    () => null,
    () => pick(rng, DATES)
  ])()
}

/** Sets doc[key] unless the dice say the field is missing. */
function maybeSet(rng: Rng, doc: Record<string, unknown>, key: string, make: () => unknown, missing = 0.15): void {
  if (!chance(rng, missing)) doc[key] = make()
}

function makeItem(rng: Rng): Record<string, unknown> {
  const item: Record<string, unknown> = {
    sku: chance(rng, 0.1) ? null : pick(rng, SKUS),
    qty: chance(rng, 0.1) ? null : number(rng)
  }
  maybeSet(rng, item, 'tag', () => pick(rng, TAGS), 0.5)
  return item
}

function makeMeta(rng: Rng): unknown {
  if (chance(rng, 0.15)) return pick(rng, [null, 5, 'meta'])
  const meta: Record<string, unknown> = {}
  maybeSet(rng, meta, 'x', () => (chance(rng, 0.1) ? null : number(rng)))
  maybeSet(rng, meta, 'y', () => (chance(rng, 0.1) ? null : pick(rng, WORDS)))
  maybeSet(rng, meta, 'z', () =>
    chance(rng, 0.2) ? pick(rng, [null, 3]) : { w: chance(rng, 0.1) ? null : number(rng) }
  )
  maybeSet(rng, meta, 't', () => times(int(rng, 0, 3), () => pick(rng, TAGS)))
  return meta
}

export function generateDocuments(count: number, rng: Rng): Array<Record<string, unknown>> {
  return Array.from({ length: count }, (_, i) => {
    const doc: Record<string, unknown> = { _id: `d${String(i).padStart(5, '0')}` }
    maybeSet(rng, doc, 'n', () => (chance(rng, 0.1) ? null : number(rng)))
    maybeSet(rng, doc, 'i', () => (chance(rng, 0.1) ? null : int(rng, 0, 20)))
    maybeSet(rng, doc, 's', () => (chance(rng, 0.1) ? null : pick(rng, WORDS)))
    maybeSet(rng, doc, 'b', () => (chance(rng, 0.1) ? null : chance(rng, 0.5)))
    maybeSet(rng, doc, 'd', () => (chance(rng, 0.1) ? null : pick(rng, DATES)))
    maybeSet(rng, doc, 'mix', () => scalar(rng))
    maybeSet(rng, doc, 'tags', () => times(int(rng, 0, 4), () => (chance(rng, 0.08) ? null : pick(rng, TAGS))))
    maybeSet(rng, doc, 'nums', () => times(int(rng, 0, 5), () => number(rng)))
    maybeSet(rng, doc, 'm2', () => times(int(rng, 1, 3), () => times(int(rng, 0, 2), () => int(rng, 1, 3))), 0.5)
    maybeSet(rng, doc, 'items', () => times(int(rng, 0, 3), () => makeItem(rng)))
    maybeSet(rng, doc, 'meta', () => makeMeta(rng), 0.1)
    return doc
  })
}

/** How a path is queried: its kind hint, a sample operand, the operators that agree with MongoDB on it. */
interface PathSpec {
  path: string
  kind?: FieldKind
  value: (rng: Rng) => unknown
  ops: readonly string[]
  /** Null operands allowed (mingo and MongoDB agree on null for this path). */
  nullOk: boolean
  types?: ReadonlyArray<string | number>
  regex?: boolean
  elemMatch?: 'value' | 'document'
}

const RANGES = ['$gt', '$gte', '$lt', '$lte']
const SCALAR_OPS = ['eq', '$eq', '$ne', '$in', '$nin', ...RANGES, '$exists', '$type', '$not']
const ARRAY_OPS = [...SCALAR_OPS, '$size', '$all', '$elemMatch']
const TRAVERSAL_OPS = ['eq', '$eq', '$ne', '$in', '$nin', ...RANGES, '$exists', '$not']
const SCALAR_TYPES = ['string', 'number', 'int', 'double', 'bool', 'null', 'object', 'array', 'date', 2, 10]
const ARRAY_TYPES = ['array', 'object', 'bool', 4]

const word = (rng: Rng): unknown => pick(rng, WORDS)
const tag = (rng: Rng): unknown => pick(rng, TAGS)
const date = (rng: Rng): unknown => new Date(pick(rng, DATES))

const PATHS: readonly PathSpec[] = [
  { path: 'n', kind: 'number', value: number, ops: SCALAR_OPS, nullOk: true, types: SCALAR_TYPES },
  { path: 'i', kind: 'integer', value: rng => int(rng, 0, 20), ops: SCALAR_OPS, nullOk: true, types: SCALAR_TYPES },
  { path: 's', kind: 'string', value: word, ops: SCALAR_OPS, nullOk: true, types: SCALAR_TYPES, regex: true },
  { path: 'b', kind: 'boolean', value: rng => chance(rng, 0.5), ops: SCALAR_OPS, nullOk: true, types: SCALAR_TYPES },
  { path: 'd', kind: 'date', value: date, ops: SCALAR_OPS, nullOk: true, types: SCALAR_TYPES },
  { path: 'mix', value: scalar, ops: SCALAR_OPS, nullOk: true, types: SCALAR_TYPES, regex: true },
  { path: 'tags', value: tag, ops: ARRAY_OPS, nullOk: true, types: ARRAY_TYPES, regex: true, elemMatch: 'value' },
  { path: 'nums', value: number, ops: ARRAY_OPS, nullOk: true, types: ARRAY_TYPES, elemMatch: 'value' },
  {
    path: 'm2',
    value: rng => pick(rng, [1, 2, 3, [1, 2], [3], [], [[1, 2], [3]]]),
    ops: ['eq', '$ne', '$exists', '$size', '$type'],
    nullOk: true,
    types: ARRAY_TYPES
  },
  {
    path: 'items',
    value: makeItem,
    ops: ['eq', '$size', '$exists', '$all', '$elemMatch'],
    nullOk: false,
    types: ARRAY_TYPES,
    elemMatch: 'document'
  },
  { path: 'items.sku', value: rng => pick(rng, SKUS), ops: TRAVERSAL_OPS, nullOk: true, regex: true },
  { path: 'items.qty', value: number, ops: TRAVERSAL_OPS, nullOk: true },
  { path: 'items.tag', value: tag, ops: TRAVERSAL_OPS, nullOk: false, regex: true },
  { path: 'items.0.sku', value: rng => pick(rng, SKUS), ops: TRAVERSAL_OPS, nullOk: false, regex: true },
  { path: 'tags.0', value: tag, ops: TRAVERSAL_OPS, nullOk: false },
  { path: 'nums.1', value: number, ops: TRAVERSAL_OPS, nullOk: false },
  { path: 'meta', value: makeMeta, ops: ['$exists', '$type', '$ne'], nullOk: true, types: SCALAR_TYPES },
  { path: 'meta.x', kind: 'number', value: number, ops: SCALAR_OPS, nullOk: true, types: SCALAR_TYPES },
  { path: 'meta.y', kind: 'string', value: word, ops: SCALAR_OPS, nullOk: true, types: SCALAR_TYPES, regex: true },
  { path: 'meta.z.w', value: number, ops: SCALAR_OPS, nullOk: true, types: SCALAR_TYPES },
  { path: 'meta.t', value: tag, ops: ARRAY_OPS, nullOk: true, types: ARRAY_TYPES, regex: true, elemMatch: 'value' }
]

/** The fields of an `items` element, for $elemMatch documents. */
const ITEM_PATHS: readonly PathSpec[] = [
  { path: 'sku', value: rng => pick(rng, SKUS), ops: SCALAR_OPS, nullOk: true, types: SCALAR_TYPES, regex: true },
  { path: 'qty', value: number, ops: SCALAR_OPS, nullOk: true, types: SCALAR_TYPES },
  { path: 'tag', value: tag, ops: SCALAR_OPS, nullOk: true, types: SCALAR_TYPES, regex: true }
]

/** Sortable fields: scalars of one or several types, never arrays or objects. */
const SORT_PATHS = ['n', 'i', 's', 'b', 'd', 'mix', 'meta.x', 'meta.y', 'meta.z.w', 'items.0.sku']

/** The kind hints a model schema would declare: only fields whose values are always of that kind. */
export function kindOf(path: string): FieldKind | undefined {
  return PATHS.find(p => p.path === path)?.kind
}

/** Arrays whose elements are always scalars (a schema's array of strings or numbers). */
const SCALAR_ARRAYS = ['tags', 'nums', 'meta.t']

/**
 * The containment hints a model would give (src/compiler/filter/compile-comparison.ts): declared
 * scalars without an index, arrays of scalars.
 */
export function containmentOf(path: string): Containment | undefined {
  if (kindOf(path) !== undefined) return 'value'
  return SCALAR_ARRAYS.includes(path) ? 'element' : undefined
}

function generateRegex(rng: Rng): RegExp {
  return new RegExp(pick(rng, PATTERNS), pick(rng, FLAGS))
}

export interface GeneratedCase {
  filter: Filter
  sort?: Sort
}

export function generateCases(count: number, rng: Rng): GeneratedCase[] {
  return times(count, () => {
    const filter = generateFilter(rng, PATHS, 1)
    if (!chance(rng, 0.3)) return { filter }
    const sort: Sort = times(int(rng, 1, 2), () => [pick(rng, SORT_PATHS), pick(rng, [1, -1] as const)])
    return { filter, sort: sort.filter(([p], i) => sort.findIndex(([q]) => q === p) === i) }
  })
}

function generateFilter(rng: Rng, paths: readonly PathSpec[], depth: number): Filter {
  if (depth < 3 && chance(rng, 0.25)) {
    const op = pick(rng, ['$and', '$or', '$nor'])
    return { [op]: times(int(rng, 1, 3), () => generateFilter(rng, paths, depth + 1)) }
  }
  const filter: Filter = {}
  for (const spec of times(int(rng, 1, 2), () => pick(rng, paths)))
    filter[spec.path] = generateCondition(rng, spec, depth)
  return filter
}

function generateCondition(rng: Rng, spec: PathSpec, depth: number): unknown {
  if (spec.regex && chance(rng, 0.1)) return { $regex: pick(rng, PATTERNS), $options: pick(rng, FLAGS) }
  const op = pick(rng, spec.ops)
  if (op === 'eq') return spec.regex && chance(rng, 0.3) ? generateRegex(rng) : operand(rng, spec, true)
  const operators: Record<string, unknown> = { [op]: generateOperand(rng, spec, op, depth) }
  if (RANGES.includes(op) && chance(rng, 0.3)) operators[pick(rng, RANGES)] = operand(rng, spec, false)
  return operators
}

/** A value for the path (or, now and then, of another type); null only where allowed. */
function operand(rng: Rng, spec: PathSpec, allowNull: boolean): unknown {
  if (allowNull && spec.nullOk && chance(rng, 0.15)) return null
  const value = chance(rng, 0.85) ? spec.value(rng) : scalarOperand(rng)
  return value === null && !(allowNull && spec.nullOk) ? scalarOperand(rng) : value
}

/** A scalar of any type (no null), to exercise type bracketing. */
function scalarOperand(rng: Rng): unknown {
  const value = scalar(rng)
  return value === null ? 7 : value
}

function generateOperand(rng: Rng, spec: PathSpec, op: string, depth: number): unknown {
  switch (op) {
    case '$eq':
    case '$ne':
      return operand(rng, spec, true)
    case '$in':
    case '$nin':
      return generateInList(rng, spec)
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return operand(rng, spec, false)
    case '$exists':
      return chance(rng, 0.5)
    case '$type':
      return pick(rng, spec.types ?? ['string'])
    case '$size':
      return int(rng, 0, 4)
    case '$all':
      return generateAll(rng, spec)
    case '$elemMatch':
      return spec.elemMatch === 'document'
        ? generateFilter(rng, ITEM_PATHS, depth + 1)
        : generateValueCriteria(rng, spec)
    default:
      return generateNot(rng, spec, depth)
  }
}

function generateInList(rng: Rng, spec: PathSpec): unknown[] {
  return times(int(rng, 0, 4), () => (spec.regex && chance(rng, 0.2) ? generateRegex(rng) : operand(rng, spec, true)))
}

function generateAll(rng: Rng, spec: PathSpec): unknown[] {
  if (spec.elemMatch === 'document')
    return times(int(rng, 1, 2), () => ({ $elemMatch: generateFilter(rng, ITEM_PATHS, 2) }))
  return times(int(rng, 1, 3), () => (spec.regex && chance(rng, 0.2) ? generateRegex(rng) : spec.value(rng)))
}

function generateValueCriteria(rng: Rng, spec: PathSpec): Record<string, unknown> {
  const ops = ['$eq', '$ne', '$in', '$nin', ...RANGES, ...(spec.regex ? ['$regex'] : [])]
  const criteria: Record<string, unknown> = {}
  for (const op of times(int(rng, 1, 2), () => pick(rng, ops))) {
    criteria[op] =
      op === '$regex'
        ? pick(rng, PATTERNS)
        : op === '$in' || op === '$nin'
          ? generateInList(rng, spec)
          : operand(rng, spec, !RANGES.includes(op))
    if (op === '$regex') criteria.$options = pick(rng, FLAGS)
  }
  return criteria
}

function generateNot(rng: Rng, spec: PathSpec, depth: number): unknown {
  if (spec.regex && chance(rng, 0.3)) return generateRegex(rng)
  const op = pick(
    rng,
    spec.ops.filter(o => o !== 'eq' && o !== '$not')
  )
  return { [op]: generateOperand(rng, spec, op, depth + 1) }
}
