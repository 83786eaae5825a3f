// The aggregation language every engine accepts: stage names, $group accumulators
// and expression operators. Anything else is refused before an engine sees it, so
// server-side code ($where, $function, $accumulator) and writes ($out, $merge) never run.
// The SQL compiler implements exactly these (test/validation/check-pipeline.test.ts checks).

export const STAGES = [
  '$match',
  '$group',
  '$sort',
  '$limit',
  '$skip',
  '$project',
  '$addFields',
  '$set',
  '$unset',
  '$unwind',
  '$count',
  '$lookup',
  '$replaceRoot',
  '$replaceWith',
  '$facet',
  '$sortByCount',
  '$sample'
] as const

/** Stages that write: refused on every engine. */
export const WRITE_STAGES = ['$out', '$merge'] as const

export const ACCUMULATORS = ['$sum', '$avg', '$min', '$max', '$first', '$last', '$push', '$addToSet', '$count'] as const

export const EXPRESSION_OPERATORS = [
  '$add',
  '$multiply',
  '$subtract',
  '$divide',
  '$abs',
  '$floor',
  '$ceil',
  '$round',
  '$mod',
  '$cmp',
  '$cond',
  '$ifNull',
  '$literal',
  '$eq',
  '$ne',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
  '$and',
  '$or',
  '$not',
  '$concat',
  '$toLower',
  '$toUpper',
  '$substr',
  '$substrCP',
  '$size',
  '$arrayElemAt',
  '$dateToString',
  '$in',
  '$year',
  '$month',
  '$dayOfMonth',
  '$hour',
  '$minute',
  '$second',
  '$millisecond'
] as const

/** Variables every expression may name besides $lookup's `let` ones. */
export const SYSTEM_VARIABLES = ['ROOT', 'CURRENT', 'REMOVE'] as const

/** Names of `let` variables (lower-case first, as in MongoDB). */
export const VARIABLE_NAME = /^[a-z][A-Za-z0-9_]{0,63}$/

export type StageName = (typeof STAGES)[number]
