// JXP's literal strings in /query and /aggregate bodies, converted as JXP converts
// them, or refused: never left as text that silently matches nothing.
import t from 'tap'
import { reviveJxpLiterals } from '../../src/query/jxp-literals.ts'

const DAY = 86_400_000

t.test('new Date(...) and ObjectId(...)', async t => {
  t.same(reviveJxpLiterals({ a: 'new Date("2024-01-02T03:04:05.678Z")' }), { a: '2024-01-02T03:04:05.678Z' })
  t.same(reviveJxpLiterals(["new Date('2024-01-02')", 'new Date(1700000000000)']), [
    '2024-01-02T00:00:00.000Z',
    '2023-11-14T22:13:20.000Z'
  ])
  const now = reviveJxpLiterals('new Date()') as string
  t.ok(Math.abs(Date.parse(now) - Date.now()) < 60_000, 'new Date() is now')
  t.same(reviveJxpLiterals({ $match: { _id: 'ObjectId("5EB7CF838C9FBA641E0E9DCB")' } }), {
    $match: { _id: '5eb7cf838c9fba641e0e9dcb' }
  })
  t.same(
    reviveJxpLiterals({ foo: 'about new Date("x")', n: 3, ok: true, none: null }),
    { foo: 'about new Date("x")', n: 3, ok: true, none: null },
    'other values stay'
  )
})

t.test('relative_date(offset, unit, startOf, endOf), as moment computes it', async t => {
  const at = (text: string): Date => new Date(reviveJxpLiterals(text) as string)
  const yesterday = at('relative_date(-1,"days")').getTime()
  t.ok(Math.abs(yesterday - (Date.now() - DAY)) < 3_600_000 + 60_000, 'a day ago (give or take a clock change)')
  const start = at('relative_date(0, "days", "day")')
  t.same(
    [start.getHours(), start.getMinutes(), start.getSeconds(), start.getMilliseconds()],
    [0, 0, 0, 0],
    "the start of today, in the server's time zone"
  )
  const end = at('relative_date(null, null, null, "month")')
  t.same(
    [end.getHours(), end.getMinutes(), end.getMilliseconds(), new Date(end.getTime() + 1).getDate()],
    [23, 59, 999, 1],
    'the end of this month'
  )
  t.equal(at('relative_date(-1, "M", "isoWeek")').getDay(), 1, "moment's short units, and isoWeek (Monday)")
  t.equal(at('relative_date()').toString() !== 'Invalid Date', true, 'no parameters: now')
})

t.test('a literal that does not parse is a 400', async t => {
  for (const text of [
    'new Date("tomorrow")',
    'new Date(',
    'new Date("2024-01-01") + 1',
    'ObjectId("123")',
    'ObjectId(5eb7cf838c9fba641e0e9dcb)',
    'relative_date(-1, "fortnights")',
    'relative_date(x, "days")',
    'relative_date(1, "days", "day", "day", "extra")',
    'relative_date(1, "days"',
    // Beyond the range of dates (an audit found these answered 500).
    'relative_date(1e20)',
    'relative_date(1e6, "years")'
  ]) {
    t.throws(
      () => reviveJxpLiterals({ $match: { createdAt: { $gt: text } } }),
      { code: 'INVALID_QUERY', status: 400 },
      text
    )
  }
})
