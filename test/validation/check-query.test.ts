// The engine-neutral filter check: client errors for bad or hostile filters, the limits,
// the refusal of hidden (password) fields, and the normalized form the engines receive.
import t from 'tap'
import type { Filter } from '../../src/query/types.ts'
import { checkFields, checkFilter, checkSort } from '../../src/validation/check-query.ts'
import type { Sort } from '../../src/query/types.ts'
import { LIMITS } from '../../src/validation/limits.ts'

function nest(depth: number): Filter {
  return depth === 1 ? { a: 1 } : { $and: [nest(depth - 1)] }
}

const ERRORS: Array<[string, () => Filter, string, RegExp?]> = [
  ['quote in a field name', () => ({ "a'b": 1 }), 'INVALID_FIELD'],
  ['semicolon in a field name', () => ({ 'a;drop': 1 }), 'INVALID_FIELD'],
  ['operator inside a path', () => ({ 'a.$where': 1 }), 'INVALID_FIELD'],
  ['very long field name', () => ({ ['x'.repeat(65)]: 1 }), 'INVALID_FIELD'],
  ['empty path segment', () => ({ 'a..b': 1 }), 'INVALID_FIELD'],
  ['too many path segments', () => ({ 'a.b.c.d.e.f.g.h.i': 1 }), 'INVALID_FIELD'],
  ['bad field name in $elemMatch', () => ({ items: { $elemMatch: { "x'": 1 } } }), 'INVALID_FIELD'],
  ['$where', () => ({ $where: 'sleep(1)' }), 'UNSUPPORTED_OPERATOR', /^Unsupported query operator: \$where$/],
  ['$expr', () => ({ $expr: { $eq: ['$a', 1] } }), 'UNSUPPORTED_OPERATOR'],
  ['unknown field operator', () => ({ a: { $foo: 1 } }), 'UNSUPPORTED_OPERATOR', /^Unsupported query operator: \$foo$/],
  ['$mod', () => ({ a: { $mod: [2, 0] } }), 'UNSUPPORTED_OPERATOR'],
  ['empty $and', () => ({ $and: [] }), 'INVALID_QUERY'],
  ['$or of an object', () => ({ $or: { a: 1 } }), 'INVALID_QUERY'],
  ['$in of a scalar', () => ({ a: { $in: 5 } }), 'INVALID_QUERY'],
  ['range with an array operand', () => ({ a: { $gt: [1] } }), 'INVALID_QUERY'],
  ['negative $size', () => ({ a: { $size: -1 } }), 'INVALID_QUERY'],
  ['unknown $type', () => ({ a: { $type: 'foo' } }), 'INVALID_QUERY'],
  ['$not of a scalar', () => ({ a: { $not: 5 } }), 'INVALID_QUERY'],
  ['$options alone', () => ({ a: { $options: 'i' } }), 'INVALID_QUERY'],
  ['operators mixed with fields', () => ({ a: { $gt: 1, b: 2 } }), 'INVALID_QUERY'],
  ['undefined value', () => ({ a: undefined }), 'INVALID_QUERY'],
  ['NaN', () => ({ a: NaN }), 'INVALID_QUERY'],
  ['NUL character', () => ({ a: 'x\u0000y' }), 'INVALID_QUERY'],
  ['operator in $all', () => ({ a: { $all: [{ $gt: 1 }] } }), 'INVALID_QUERY'],
  ['$elemMatch of a scalar', () => ({ a: { $elemMatch: 5 } }), 'INVALID_QUERY'],
  ['$eq of a regular expression', () => ({ a: { $eq: /x/ } }), 'INVALID_QUERY'],
  ['filter is not an object', () => ({ $and: [5] }), 'INVALID_QUERY'],
  [`nesting deeper than ${LIMITS.filterDepth}`, () => nest(LIMITS.filterDepth + 1), 'QUERY_TOO_COMPLEX'],
  [
    `more than ${LIMITS.filterTerms} terms`,
    () => ({ $or: Array.from({ length: LIMITS.filterTerms }, (_, i) => ({ [`f${i}`]: i })) }),
    'QUERY_TOO_COMPLEX'
  ],
  [
    `$in longer than ${LIMITS.inValues}`,
    () => ({ a: { $in: Array.from({ length: LIMITS.inValues + 1 }, (_, i) => i) } }),
    'QUERY_TOO_COMPLEX'
  ],
  ['bad regular expression', () => ({ a: { $regex: '(?<name>x)' } }), 'INVALID_REGEX'],
  ['__proto__ as a field', () => JSON.parse('{"__proto__": 1}'), 'INVALID_FIELD'],
  ['constructor inside a path', () => ({ 'a.constructor': 1 }), 'INVALID_FIELD'],
  ['$type "constructor"', () => ({ a: { $type: 'constructor' } }), 'INVALID_QUERY', /^Unknown \$type/],
  ['$type "toString" in a list', () => ({ a: { $type: ['string', 'toString'] } }), 'INVALID_QUERY'],
  ['lone surrogate', () => ({ a: 'x\ud800' }), 'INVALID_QUERY'],
  ['infinite number', () => ({ a: { $gt: Infinity } }), 'INVALID_QUERY']
]

t.test('client errors', async t => {
  for (const [name, make, code, message] of ERRORS) {
    t.throws(() => checkFilter(make()), { code, status: 400, ...(message ? { message } : {}) }, name)
  }
})

t.test('limits are inclusive', async t => {
  t.doesNotThrow(() => checkFilter(nest(LIMITS.filterDepth)), `${LIMITS.filterDepth} levels`)
  t.doesNotThrow(
    () => checkFilter({ $or: Array.from({ length: LIMITS.filterTerms - 1 }, (_, i) => ({ [`f${i}`]: i })) }),
    `${LIMITS.filterTerms} terms`
  )
  t.doesNotThrow(
    () => checkFilter({ a: { $in: Array.from({ length: LIMITS.inValues }, (_, i) => i) } }),
    `${LIMITS.inValues} values`
  )
})

t.test('sort terms and selected fields: at most their limit, for every way a query arrives', async t => {
  const sort: Sort = Array.from({ length: LIMITS.sortTerms + 1 }, (_, i) => [`f${i}`, 1])
  t.throws(() => checkSort(sort, []), { code: 'QUERY_TOO_COMPLEX' }, `more than ${LIMITS.sortTerms} sort terms`)
  t.doesNotThrow(() => checkSort(sort.slice(1), []), `${LIMITS.sortTerms} sort terms`)
  const fields = Array.from({ length: LIMITS.projectionFields + 1 }, (_, i) => `f${i}`)
  t.throws(() => checkFields(fields), { code: 'QUERY_TOO_COMPLEX' }, `more than ${LIMITS.projectionFields} fields`)
  t.doesNotThrow(() => checkFields(fields.slice(1)), `${LIMITS.projectionFields} fields`)
})

t.test('hidden fields cannot be matched, at any nesting of $and/$or/$nor', async t => {
  const hidden = ['password']
  const cases: Filter[] = [
    { password: 'x' },
    { password: { $regex: '^\\$2b\\$10\\$a' } },
    { 'password.x': 1 },
    { $or: [{ a: 1 }, { password: { $exists: true } }] },
    { $nor: [{ $and: [{ password: null }] }] }
  ]
  for (const filter of cases) {
    t.throws(
      () => checkFilter(filter, hidden),
      { code: 'INVALID_FIELD', message: /password cannot be used in a query/ },
      JSON.stringify(filter)
    )
  }
  t.doesNotThrow(
    () => checkFilter({ items: { $elemMatch: { password: 1 } } }, hidden),
    "inside $elemMatch a path names an element's field"
  )
  t.doesNotThrow(() => checkFilter({ passwordHint: 'x' }, hidden), 'only the hidden field itself')
})

t.test('the checked filter is normalized for the engines', async t => {
  t.same(
    checkFilter({ when: { $gte: new Date('2024-01-02T03:04:05Z') } }),
    { when: { $gte: '2024-01-02T03:04:05.000Z' } },
    'dates become ISO text'
  )
  t.same(checkFilter({ a: { $type: [2, 'int'] } }), { a: { $type: ['string', 'int'] } }, '$type codes become names')
  const checked = checkFilter({ a: 1, $or: [{ b: { $in: [1, /x/] } }] })
  t.same(checked, { a: 1, $or: [{ b: { $in: [1, /x/] } }] }, 'everything else is kept')
  t.equal(Object.getPrototypeOf(checked), Object.prototype, 'a plain object')
})
