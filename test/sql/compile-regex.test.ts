// Tests of the PCRE-to-ARE translation: exact output, rejected syntax, and matching on PGlite
// for every flag, checked against what PCRE (MongoDB) answers.
import t from 'tap'
import { PGlite } from '@electric-sql/pglite'
import { compileRegex, MAX_REGEX_LENGTH, readRegex } from '../../src/sql/compile-regex.ts'

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
  ['(a)(?:b)\\1', '', '(?p)(a)(?:b)\\1'],
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
  ['(a)(?=\\1)', '', 'back reference in lookaround'],
  ['(?=(a))(b)\\2', '', 'capture inside lookaround renumbers groups'],
  ['abc\\', '', 'trailing backslash']
]

t.test('translation', async t => {
  for (const [pattern, flags, are] of TRANSLATIONS) t.equal(compileRegex({ pattern, flags }), are, `/${pattern}/${flags}`)
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

/** [pattern, flags, subject, PCRE's answer] */
const MATCHES: Array<[string, string, string, boolean]> = [
  ['a.b', '', 'a\nb', false], ['a.b', 's', 'a\nb', true], ['a.b', 'm', 'a\nb', false], ['a.b', 'ms', 'a\nb', true],
  ['^b', '', 'a\nb', false], ['^b', 'm', 'a\nb', true], ['^b', 's', 'a\nb', false], ['^b', 'ms', 'a\nb', true],
  ['a$', '', 'a\nb', false], ['a$', 'm', 'a\nb', true], ['a$', 'ms', 'a\nb', true], ['b$', '', 'a\nb', true],
  ['ABC', 'i', 'xabcx', true], ['ABC', '', 'xabcx', false], ['[^x]', '', '\n', true], ['[^x]', 'm', '\n', true],
  ['[^\\n]', '', '\n', false], ['a[^b]c', '', 'a\nc', true], ['a b # spaced\n c', 'x', 'abc', true],
  ['a b', 'x', 'a b', false], ['\\bfoo\\b', '', 'a foo.', true], ['\\bfoo\\b', '', 'afoo', false],
  ['(?<=a)b', '', 'ab', true], ['(?<!a)b', '', 'ab', false], ['(a)x\\1', '', 'axa', true], ['\\x41', '', 'A', true],
  ['a{,3}', '', 'a{,3}', true], ['[^\\x0b-\\x7f]', '', '\n', true], ['"\'\\\\', '', '"\'\\', true], ['^$', 'm', 'a\n\nb', true], ['.', '', '😀', true]
]

t.test('matching on PostgreSQL (PGlite) agrees with PCRE', async t => {
  const db = new PGlite()
  t.teardown(async () => await db.close())
  for (const [pattern, flags, subject, expected] of MATCHES) {
    const are = compileRegex({ pattern, flags })
    const { rows } = await db.query<{ m: boolean }>('SELECT $1::text ~ $2 AS m', [subject, are])
    const { rows: viaPath } = await db.query<{ m: boolean }>(
      'SELECT jsonb_path_exists(jsonb_build_object(\'s\', $1::text), $2::jsonpath) AS m',
      [subject, `lax $.s ? (@ like_regex ${JSON.stringify(are)})`])
    t.same([rows[0].m, viaPath[0].m], [expected, expected], `/${JSON.stringify(pattern).slice(1, -1)}/${flags} on ${JSON.stringify(subject)}`)
  }
})
