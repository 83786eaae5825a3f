// Tests of the regex cost bound: expanded sizes and lookaround counts of accepted patterns, and
// the reasons given for refused ones (the audit's repros among them).
import t from 'tap'
import { checkRegexCost, MAX_REGEX_LOOKAROUNDS, MAX_REGEX_SIZE } from '../../../src/validation/regex/regex-cost.ts'

/** [pattern, flags, expanded size, lookarounds] */
const COSTS: Array<[string, string, number, number]> = [
  ['abc', '', 3, 0],
  ['a|bc|', '', 3, 0],
  ['a{255}', '', 255, 0],
  ['a{3,}', '', 4, 0],
  ['a{2,5}?', '', 5, 0],
  ['a{0}', '', 1, 0],
  ['(ab){3}c', '', 7, 0],
  ['(?:a{1,10}){1,10}', '', 100, 0],
  ['((a{1,9}){1,9}){1,9}b', '', 730, 0],
  ['[a-z{}()|\\]]{10}', '', 10, 0],
  ['[]a]+', '', 1, 0],
  ['[[:alpha:]]{4}', '', 4, 0],
  ['\\d{3}-\\x41{2}', '', 6, 0],
  ['a{,3}', '', 5, 0],
  ['x{', '', 2, 0],
  ['^(?=.*[a-z])(?=.*\\d).{8,}$', '', 15, 2],
  ['(?:(?<=a)b){5}', '', 10, 5],
  ['a b # (a{1,255}){1,255}\n c', 'x', 3, 0],
  ['[ #]{2}', 'x', 2, 0],
  ['(a', '', 1, 0],
  ['a)b', '', 2, 0]
]

/** [pattern, flags, a word of the expected message] */
const REFUSED: Array<[string, string, RegExp]> = [
  ['(a{1,255}){1,255}', '', /too large once its repetitions are expanded/],
  ['((a{1,50}){1,50}){1,50}', '', /too large/],
  ['a{1001}', '', /too large/],
  ['(a{1,32}){1,32}', '', /too large/],
  ['(.*)(.*)(.*)(.*)\\4\\3\\2\\1$', '', /Back references \(\\4\) are not supported/],
  ['(a)\\1', '', /Back references/],
  ['[\\1](a)\\1', '', /Back references/],
  ['(?=a*(?=a*x))', '', /Lookarounds inside lookarounds/],
  ['(?<!a(?!b))', '', /Lookarounds inside lookarounds/],
  ['(?:(?=.*a)b){11}', '', new RegExp(`limited to ${MAX_REGEX_LOOKAROUNDS} lookarounds`)],
  ['(?=a)'.repeat(MAX_REGEX_LOOKAROUNDS + 1), '', /lookarounds/]
]

t.test('costs of accepted patterns', async t => {
  for (const [pattern, flags, size, lookarounds] of COSTS) {
    t.same(checkRegexCost(pattern, flags), { size, lookarounds }, `/${pattern}/${flags}`)
  }
})

t.test('the largest accepted size', async t => {
  t.same(checkRegexCost(`a{${MAX_REGEX_SIZE}}`), { size: MAX_REGEX_SIZE, lookarounds: 0 })
  t.throws(() => checkRegexCost(`a{${MAX_REGEX_SIZE}}b`), { code: 'INVALID_REGEX' })
})

t.test('refused patterns name the reason', async t => {
  for (const [pattern, flags, message] of REFUSED) {
    t.throws(
      () => checkRegexCost(pattern, flags),
      { code: 'INVALID_REGEX', status: 400, message },
      `/${pattern}/${flags}`
    )
  }
})
