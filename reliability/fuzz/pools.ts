// Pools of hostile values for the fuzz, drawn once per run from fast-check's
// generators (seeded) plus hand-picked classics: injection strings, unicode
// edge cases, NUL bytes, lone surrogates, huge and tiny numbers, prototype keys.
// Request builders pick from the pools with a seeded random generator.
import fc from 'fast-check'
import { RawJson, deeplyNested, type Json } from './json-text.ts'

const INJECTIONS = [
  "' OR '1'='1",
  "'; DROP TABLE q_test; --",
  '"; SELECT pg_sleep(30); --',
  "') OR 1=1 --",
  '1; SELECT 1',
  '$1',
  '$$',
  "E'\\\\x00'",
  '::jsonb',
  '::text',
  '/*',
  '*/',
  '--',
  ';',
  '\\',
  '\\\\',
  '%',
  '%%',
  '_',
  '*',
  '?',
  '??',
  '@@',
  '@>',
  '<@',
  '#>>',
  '||',
  '->>',
  '{}',
  '[]',
  '{"$gt":""}',
  '{"$ne":null}',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-0',
  'true',
  '0x1F',
  '1e400',
  '9'.repeat(40),
  '$where',
  '$expr',
  '$function',
  '$accumulator',
  '$regex',
  '$ne',
  '$gt',
  '$in',
  '$or',
  '$and',
  '$not',
  '$elemMatch',
  '$$ROOT',
  '$',
  '$.',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '__defineGetter__',
  'valueOf',
  '(',
  ')',
  '[',
  '[^',
  '(?<',
  '(?=',
  '\\1',
  '\\k<a>',
  '(a|b',
  '{1,2}',
  'a{99999}',
  '[z-a]',
  '\\p{L}',
  '(?i)',
  '^$',
  '.*',
  '(a+)+b',
  '../../../etc/passwd',
  '..\\..\\windows',
  'file:///etc/passwd',
  '<script>alert(1)</script>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, sent as plain text
  '${7*7}',
  '{{7*7}}',
  '%00',
  '%zz',
  '%C0%AE',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\ud83dy',
  '\u202e',
  '\ufeff',
  '\u200b',
  '😀',
  '👩‍👩‍👧',
  'ǅ',
  'İ',
  'ß',
  'ﬁ',
  '\r\n',
  '\n',
  '\t',
  ' ',
  ''
]

const RAW_NUMBERS = [
  '1e400',
  '-1e400',
  '1e-400',
  '-0',
  '123456789012345678901234567890',
  '0.1e999999',
  '1E+308',
  '4.9e-324'
]

const NUMBERS = [
  0,
  -1,
  1,
  0.5,
  -0.5,
  2 ** 31,
  -(2 ** 31),
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 63),
  2 ** 64,
  1.7976931348623157e308,
  -1.7976931348623157e308,
  5e-324,
  1e21,
  1e-7
]

export interface Pools {
  strings: string[]
  numbers: Json[]
  /** Arbitrary JSON values, nested up to 3 levels. */
  values: Json[]
  /** Long strings: 1 KB to 300 KB. */
  longStrings: string[]
}

export function drawPools(seed: number): Pools {
  const sample = <T>(arb: fc.Arbitrary<T>, numRuns: number): T[] => fc.sample(arb, { seed, numRuns })
  const strings = [
    ...INJECTIONS,
    ...sample(fc.string({ unit: 'binary', maxLength: 24 }), 300),
    ...sample(fc.string({ unit: 'grapheme', maxLength: 24 }), 300),
    ...sample(fc.string({ unit: 'binary-ascii', maxLength: 24 }), 300),
    ...sample(fc.stringMatching(/^[a-z0-9-]{1,12}$/), 100)
  ]
  const numbers: Json[] = [
    ...NUMBERS,
    ...RAW_NUMBERS.map(t => new RawJson(t)),
    ...sample(fc.double({ noNaN: true, noDefaultInfinity: true }), 100),
    ...sample(fc.integer(), 100)
  ]
  const values: Json[] = [
    ...(sample(fc.jsonValue({ maxDepth: 3 }), 400) as Json[]),
    deeplyNested(64, 'array'),
    deeplyNested(64, 'object'),
    deeplyNested(2000, 'array'),
    deeplyNested(20_000, 'object')
  ]
  const longStrings = [1024, 10_000, 70_000, 300_000].map((n, i) => ['a', 'é', '😀', '\u0000'][i].repeat(n))
  return { strings, numbers, values, longStrings }
}
