// reviveExtendedJson: MongoDB extended JSON wrappers in pipelines and bodies become the
// plain values Quire stores ($oid -> hex string, $date -> normalized ISO string).
import t from 'tap'
import { reviveExtendedJson } from '../../../src/query/extended-json.ts'

t.test('revives wrappers anywhere in a value', async t => {
  const cases: Array<[name: string, input: unknown, output: unknown]> = [
    ['$oid becomes the (lower-case) hex string', { $oid: '65A1B2C3D4E5F60718293A4B' }, '65a1b2c3d4e5f60718293a4b'],
    ['$date ISO string is normalized', { $date: '2024-05-01T12:30:45Z' }, '2024-05-01T12:30:45.000Z'],
    ['$date with an offset is normalized to UTC', { $date: '2024-05-01T14:30:45.5+02:00' }, '2024-05-01T12:30:45.500Z'],
    ['$date in milliseconds', { $date: 86400000 }, '1970-01-02T00:00:00.000Z'],
    ['$date as $numberLong', { $date: { $numberLong: '-1000' } }, '1969-12-31T23:59:59.000Z'],
    [
      'nested in stages',
      [{ $match: { at: { $gte: { $date: 0 } }, owner: { $in: [{ $oid: '65a1b2c3d4e5f60718293a4b' }] } } }],
      [{ $match: { at: { $gte: '1970-01-01T00:00:00.000Z' }, owner: { $in: ['65a1b2c3d4e5f60718293a4b'] } } }]
    ],
    ['objects with more keys are not wrappers', { $date: 'x', other: 1 }, { $date: 'x', other: 1 }],
    ['plain values pass through', { a: [1, 'b', null, true] }, { a: [1, 'b', null, true] }]
  ]
  for (const [name, input, output] of cases) t.same(reviveExtendedJson(input), output, name)
})

t.test('does not change its input', async t => {
  const input = { when: { $date: 0 } }
  reviveExtendedJson(input)
  t.same(input, { when: { $date: 0 } })
})

t.test('invalid wrappers are a client error', async t => {
  // Numbers JSON cannot hold (an audit found Infinity stored as null in a number field).
  const notFinite = [
    { $numberDouble: 'Infinity' },
    { $numberDouble: '-Infinity' },
    { $numberLong: '-1e999' },
    { $numberDouble: '1e400' },
    { $numberDouble: 'NaN' }
  ]
  for (const input of [
    { $oid: 'xyz' },
    { $oid: 42 },
    { $date: 'yesterday' },
    { $date: { $numberLong: '1.5' } },
    { $date: null },
    { $date: true },
    ...notFinite
  ]) {
    t.throws(() => reviveExtendedJson(input), { code: 'INVALID_BODY', status: 400 }, JSON.stringify(input))
  }
})
