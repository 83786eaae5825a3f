// Tests of the PCRE-to-ARE translation: exact output and rejected syntax. Matching with every
// flag is checked on PostgreSQL in sql-on-postgres.test.ts.
import t from 'tap'
import { compileRegex, MAX_REGEX_LENGTH, readRegex } from '../../../src/validation/regex/regex-dialect.ts'

const TRANSLATIONS: Array<[pattern: string, flags: string, are: string]> = [
  ['abc', '', '(?p)abc'],
  ['abc', 'm', '(?n)abc'],
  ['abc', 's', '(?s)abc'],
  ['abc', 'ms', '(?w)abc'],
  ['abc', 'sm', '(?w)abc'],
  ['abc', 'i', '(?pi)abc'],
  ['abc', 'ims', '(?wi)abc'],
  ['a b # comment\n c', 'x', '(?p)abc'],
  ['a\\ b[ #]', 'x', '(?p)a b[ #]'],
  ['\\bword\\B', '', '(?p)\\yword\\Y'],
  ['\\Astart end\\z', '', '(?p)\\Astart end\\Z'],
  ['[^a-z]', '', '(?p)(?:[^a-z]|\\n)'],
  ['[^a-z]', 's', '(?s)[^a-z]'],
  ['[^\\n]', '', '(?p)[^\\n]'],
  ['[^\\s]', 'm', '(?n)[^\\s]'],
  ['[^\\x00-\\x7f]', '', '(?p)[^\\u0000-\\u007f]'],
  ['[^\\x0b-\\x7f]', '', '(?p)(?:[^\\u000b-\\u007f]|\\n)'],
  ['[]a]', '', '(?p)[]a]'],
  ['[a-]', '', '(?p)[a\\-]'],
  ['[[:alpha:]_]', '', '(?p)[[:alpha:]_]'],
  ['a{2}b{1,}c{0,3}?', '', '(?p)a{2}b{1,}c{0,3}?'],
  ['a{,3}', '', '(?p)a\\{,3}'],
  ['x{', '', '(?p)x\\{'],
  ['\\x41\\.', '', '(?p)\\u0041\\.'],
  ['(a)(?:b)', '', '(?p)(a)(?:b)'],
  ['(?=a)(?!b)(?<=c)(?<!d)', '', '(?p)(?=a)(?!b)(?<=c)(?<!d)'],
  ['\\d+\\.\\w*\\s?', '', '(?p)\\d+\\.\\w*\\s?'],
  ['é\\é', '', '(?p)éé'],
  ['😀+', '', '(?p)😀+']
]

const REJECTED: Array<[pattern: string, flags: string, why: string]> = [
  ['abc', 'g', 'unknown option'],
  ['abc', 'u', 'unknown option'],
  ['x'.repeat(MAX_REGEX_LENGTH + 1), '', 'too long'],
  ['(?<name>a)', '', 'named group'],
  ['(?i)a', '', 'inline option'],
  ['(?>a)', '', 'atomic group'],
  ['a++', '', 'possessive quantifier'],
  ['*a', '', 'nothing to repeat'],
  ['a**', '', 'double quantifier'],
  ['(?=a)*', '', 'quantified lookaround'],
  ['^*', '', 'quantified anchor'],
  ['a{256}', '', 'repetition above 255'],
  ['a{3,2}', '', 'reversed range'],
  ['(a', '', 'unclosed group'],
  ['a)', '', 'unopened group'],
  ['[abc', '', 'unclosed class'],
  ['[z-a]', '', 'reversed class range'],
  ['[\\W]', '', '\\W in a class'],
  ['[[.a.]]', '', 'collating element'],
  ['[[:foo:]]', '', 'unknown POSIX class'],
  ['\\p{L}', '', 'Unicode property'],
  ['\\Q.\\E', '', 'quoting'],
  ['\\K', '', 'match reset'],
  ['\\0', '', 'octal escape'],
  ['\\1(a)', '', 'forward reference'],
  ['(a)\\1', '', 'back reference'],
  ['(a{1,255}){1,255}', '', 'nested repetitions expanding past the size limit'],
  ['(?=a(?=b))', '', 'lookaround inside a lookaround'],
  ['abc\\', '', 'trailing backslash']
]

t.test('translation', async t => {
  for (const [pattern, flags, are] of TRANSLATIONS)
    t.equal(compileRegex({ pattern, flags }), are, `/${pattern}/${flags}`)
})

t.test('rejected patterns', async t => {
  for (const [pattern, flags, why] of REJECTED) {
    t.throws(() => compileRegex({ pattern, flags }), { code: 'INVALID_REGEX', status: 400 }, why)
  }
})

t.test('reading $regex values', async t => {
  t.same(readRegex(/a.b/ims), { pattern: 'a.b', flags: 'ims' }, 'RegExp flags')
  t.same(readRegex(/a/gi), { pattern: 'a', flags: 'i' }, 'g is ignored')
  t.same(readRegex(/a/i, 'm'), { pattern: 'a', flags: 'm' }, '$options win over the RegExp flags')
  t.same(readRegex('a', 'x'), { pattern: 'a', flags: 'x' }, 'string and $options')
  t.throws(() => readRegex(5), { code: 'INVALID_REGEX' }, 'a number is no pattern')
  t.throws(() => readRegex('a', 1), { code: 'INVALID_REGEX' }, '$options must be a string')
})
