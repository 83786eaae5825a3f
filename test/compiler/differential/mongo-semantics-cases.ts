// MongoDB's own expected results, from the server's jstests (null_semantics.js, all5.js,
// arrayfind5.js) and its documented array rules: the cases where mingo, the differential test's
// oracle, answers differently. Run by sql-on-postgres.test.ts.
import type { Filter } from '../../../src/query/types.ts'

export const NULL_DOCS: Record<string, unknown> = {
  a_empty_subobject: { a: {} },
  a_null: { a: null },
  a_number: { a: 4 },
  a_subobject_b_not_null: { a: { b: 'hi' } },
  a_subobject_b_null: { a: { b: null } },
  no_a: {},
  a_double_array: { a: [[]] },
  a_empty_array: { a: [] },
  a_object_array_b_mix_null_missing: { a: [{ b: null }, { b: null }, {}] },
  a_object_array_no_b_nulls: { a: [{ b: 1 }, { b: 3 }, { b: 'string' }] },
  a_object_array_some_b_nulls: { a: [{ b: null }, { b: 3 }, { b: null }] },
  a_object_array_some_b_missing: { a: [{ b: 3 }, {}] },
  a_value_array_all_nulls: { a: [null, null] },
  a_value_array_no_nulls: { a: [1, 'string', 4] },
  a_value_array_with_null: { a: [1, 'string', null, 4] }
}

const ALL_NULL_IDS = Object.keys(NULL_DOCS)
const except = (ids: string[]): string[] => ALL_NULL_IDS.filter(id => !ids.includes(id))
const EQ_NULL = ['a_null', 'no_a', 'a_value_array_all_nulls', 'a_value_array_with_null']
const DOTTED_EQ_NULL = [
  'a_empty_subobject',
  'a_null',
  'a_number',
  'a_subobject_b_null',
  'no_a',
  'a_object_array_b_mix_null_missing',
  'a_object_array_some_b_nulls',
  'a_object_array_some_b_missing'
]
const ARRAYS_OF_OBJECTS = [
  'a_object_array_b_mix_null_missing',
  'a_object_array_no_b_nulls',
  'a_object_array_some_b_nulls',
  'a_object_array_some_b_missing'
]

export const NULL_CASES: Array<[Filter, string[]]> = [
  [{ a: { $eq: null } }, EQ_NULL],
  [{ a: { $ne: null } }, except(EQ_NULL)],
  [{ a: { $in: [null, 75] } }, EQ_NULL],
  [{ $or: [{ a: null }, { a: 75 }] }, EQ_NULL],
  [{ a: { $nin: [null, 75] } }, except(EQ_NULL)],
  [{ a: { $nin: [null, []] } }, except([...EQ_NULL, 'a_double_array', 'a_empty_array'])],
  [{ a: { $nin: [null, /^str.*/] } }, except([...EQ_NULL, 'a_value_array_no_nulls'])],
  [{ a: { $not: { $gte: null } } }, except(EQ_NULL)],
  [{ a: { $gte: null } }, EQ_NULL],
  [{ a: { $gt: null } }, []],
  [{ a: { $exists: false } }, ['no_a']],
  [{ a: { $elemMatch: { $eq: null } } }, ['a_value_array_all_nulls', 'a_value_array_with_null']],
  [
    { a: { $elemMatch: { $ne: null } } },
    ['a_double_array', ...ARRAYS_OF_OBJECTS, 'a_value_array_no_nulls', 'a_value_array_with_null']
  ],
  [{ 'a.b': { $eq: null } }, DOTTED_EQ_NULL],
  [{ 'a.b': { $ne: null } }, except(DOTTED_EQ_NULL)],
  [{ 'a.b': { $in: [null, 75] } }, DOTTED_EQ_NULL],
  [{ 'a.b': { $nin: [null, 75] } }, except(DOTTED_EQ_NULL)],
  [
    { 'a.b': { $exists: false } },
    [
      'a_empty_subobject',
      'a_null',
      'a_number',
      'no_a',
      'a_double_array',
      'a_empty_array',
      'a_value_array_all_nulls',
      'a_value_array_no_nulls',
      'a_value_array_with_null'
    ]
  ]
]

/** Single-document cases: [document, filter, does MongoDB match it?] */
export const SINGLE_CASES: Array<[Record<string, unknown>, Filter, boolean]> = [
  // all5.js: $all of $elemMatch with null
  [{ a: [{}] }, { a: { $all: [{ $elemMatch: { b: null } }] } }, true],
  [{ a: [{ c: 1 }] }, { a: { $all: [{ $elemMatch: { b: null } }] } }, true],
  [{ a: [{ b: null }] }, { a: { $all: [{ $elemMatch: { b: null } }] } }, true],
  [{ a: [{ b: 1 }] }, { a: { $all: [{ $elemMatch: { b: null } }] } }, false],
  [{}, { a: { $all: [{ $elemMatch: { b: null } }] } }, false],
  [{ a: 1 }, { a: { $all: [{ $elemMatch: { b: null } }] } }, false],
  [{ a: [] }, { a: { $all: [{ $elemMatch: { b: null } }] } }, false],
  [{ a: [1] }, { a: { $all: [{ $elemMatch: { b: null } }] } }, false],
  // arrayfind5.js: a scalar element is not a document missing the field
  [{ a: [{}, { b: 1 }] }, { 'a.b': null }, true],
  [{ a: [{}, { b: 1 }] }, { a: { $elemMatch: { b: null } } }, true],
  [{ a: [5, { b: 1 }] }, { 'a.b': null }, false],
  [{ a: [5, { b: 1 }] }, { a: { $elemMatch: { b: null } } }, false],
  // a.b values are 1 and 2, none of them is the array [1, 2]
  [{ a: [{ b: 1 }, { b: 2 }] }, { 'a.b': [1, 2] }, false],
  [{ a: [{ b: [1, 2] }, { b: 3 }] }, { 'a.b': [1, 2] }, true],
  [{ a: [{ b: [1, 2] }, { b: [3] }] }, { 'a.b': 3 }, true],
  [{ a: [{ b: [1, 2] }, { b: [3] }] }, { 'a.b': { $gt: 2 } }, true],
  [{ a: [{ b: [1, 2] }, { b: [3] }] }, { 'a.b': { $size: 1 } }, true],
  [{ a: [[{ b: 1 }]] }, { 'a.b': 1 }, false],
  [{ a: [[1]] }, { a: 1 }, false],
  [{ a: [[1]] }, { a: [1] }, true],
  [{ a: [1, 2] }, { a: { $in: [[1, 2]] } }, true],
  // $type looks at array elements; "array" at the value itself
  [{ a: ['x', 1] }, { a: { $type: 'string' } }, true],
  [{ a: [['x']] }, { a: { $type: 'string' } }, false],
  [{ a: [['x']] }, { a: { $type: 'array' } }, true],
  [{ a: 'x' }, { a: { $type: 'array' } }, false],
  // $all is a conjunction of equalities, so it applies to a scalar too
  [{ a: 'x' }, { a: { $all: ['x'] } }, true],
  [{ a: ['x', 'y'] }, { a: { $all: ['y', 'x'] } }, true],
  [{ a: ['x'] }, { a: { $all: [] } }, false],
  // comparisons are type-bracketed
  [{ a: '10' }, { a: { $gt: 5 } }, false],
  [{ a: ['10', 7] }, { a: { $gt: 5 } }, true],
  [{ a: true }, { a: { $gt: false } }, true],
  // array index paths
  [{ ids: [] }, { 'ids.0': null }, false],
  [{ ids: [null] }, { 'ids.0': null }, true],
  [{ ids: 5 }, { 'ids.0': 5 }, false],
  [{ ids: [[5]] }, { 'ids.0': 5 }, true],
  [{ items: { sku: 'a' } }, { 'items.0.sku': 'a' }, false],
  // injection attempts are plain values
  [{ name: "x' OR 1=1; --\\" }, { name: "x' OR 1=1; --\\" }, true],
  [{ name: 'a"\'\\)' }, { name: { $regex: 'a"\'\\\\\\)$' } }, true],
  [{ name: 'abc' }, { name: { $in: ['"); DROP TABLE docs; --', /^a/] } }, true]
]
