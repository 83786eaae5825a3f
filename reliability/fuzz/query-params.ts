// URL query strings for the fuzz's list reads (/api, /count, /query): filter,
// search, sort, fields, populate, paging and flags, with hostile names and
// values, repeated and unknown parameters, credentials in the URL, and broken
// percent-encoding. Returns the encoded query string (without "?").
import type { Model } from '../../src/models/model-definition.ts'
import type { Choice } from './random-choice.ts'
import { fieldPath } from './mongo-filters.ts'

const FILTER_OPS = [
  '',
  '$gt:',
  '$gte:',
  '$lt:',
  '$lte:',
  '$ne:',
  '$eq:',
  '$in:',
  '$nin:',
  '$exists:',
  '$regex:',
  '$foo:',
  '$where:'
]
const BROKEN_ENCODINGS = ['%', '%z', '%zz', '%C0%AE', '%ED%A0%80', '%FF', '%00', '%2', '%%41', '+%2B+']

/** Percent-encodes; lone surrogates (which UTF-8 cannot carry) become U+FFFD, as a browser sends them. */
export function encode(text: string): string {
  return encodeURIComponent(
    text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
  )
}

function filterValue(c: Choice): string {
  const op = c.pick(FILTER_OPS)
  const value = c.weighted<string>([
    [5, () => String(c.chance(0.5) ? c.sometimesLong(10_000) : c.pick(c.pools.numbers as unknown[]))],
    [
      2,
      () =>
        `[${Array.from({ length: c.chance(0.05) ? 1200 : c.int(0, 4) }, () => c.string().replace(/,/g, '')).join(',')}]`
    ],
    [2, () => `/${c.string()}/${c.pick(['', 'i', 'm', 's', 'x', 'imsx', 'g', 'zz'])}`],
    [1, () => c.pick(['true', 'false', 'null', '', 'undefined', '2024-01-01', '1735689600', '-1e400', 'NaN'])]
  ])
  return op + value
}

function param(c: Choice, model: Model): [string, string] {
  return c.weighted<[string, string]>([
    [8, () => [`filter[${fieldPath(c, model)}]`, filterValue(c)]],
    [2, () => ['search', c.sometimesLong(10_000)]],
    [2, () => [`search[${fieldPath(c, model)}]`, c.string()]],
    [
      3,
      () => [
        'sort',
        Array.from(
          { length: c.chance(0.05) ? 9 : c.int(1, 3) },
          () => `${c.pick(['', '-', '+', '--'])}${fieldPath(c, model)}`
        ).join(',')
      ]
    ],
    [1, () => [`sort[${fieldPath(c, model)}]`, c.pick(['1', '-1', 'asc', '0', '2', c.string()])]],
    [
      2,
      () => ['fields', Array.from({ length: c.chance(0.05) ? 51 : c.int(1, 3) }, () => fieldPath(c, model)).join(',')]
    ],
    [
      2,
      () => [
        'populate',
        c.pick(['link', 'other_link', 'array_link', 'link,other_link', c.string(), fieldPath(c, model)])
      ]
    ],
    [1, () => [`populate[${c.pick(['link', 'array_link', c.string()])}]`, c.pick(['name,val', '', c.string()])]],
    [1, () => ['populate[]', c.pick(['array_link', c.string()])]],
    [
      2,
      () => [
        c.pick(['limit', 'page']),
        c.pick(['1', '10', '1000', '1001', '0', '-1', '1.5', '99999999', '999999999999', 'abc', '', c.string()])
      ]
    ],
    [1, () => [c.pick(['autopopulate', 'showDeleted']), c.pick(['true', 'false', '', '1', c.string()])]],
    [1, () => [c.pick(['apikey', 'jwt']), c.pick(['qak_short', 'eyJhbGciOiJub25lIn0.e30.', c.string()])]],
    [
      1,
      () => [
        c.pick([
          'filter',
          'filter[]',
          'filter[a][b]',
          'sort[]',
          'unknown',
          '',
          '__proto__',
          'constructor',
          'filter[__proto__]',
          'count',
          'skip'
        ]),
        c.string()
      ]
    ]
  ])
}

export function queryString(c: Choice, model: Model): string {
  const count = c.chance(0.03) ? 60 : c.int(0, 4)
  const parts = Array.from({ length: count }, () => {
    const [name, value] = param(c, model)
    return `${encode(name)}=${encode(value)}`
  })
  if (c.chance(0.05)) parts.push(c.pick(BROKEN_ENCODINGS) + '=' + c.pick(BROKEN_ENCODINGS))
  if (c.chance(0.03)) parts.push('&&', '=', '==x', 'filter[foo]')
  return parts.join('&')
}

/** A path segment: usually sound, sometimes hostile (encoded). */
export function segment(c: Choice, sound: string[]): string {
  return c.chance(0.85) ? c.pick(sound) : encode(c.chance(0.9) ? c.string() : 'x'.repeat(300))
}
