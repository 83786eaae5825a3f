// Which statements skip the expensive-statement gate: only those pinned to one primary key that
// ask nothing else of the row but plain equalities. Found by an outside review: a list, count or
// /query pinned to one _id with a costly condition counted as simple, skipped the gate and its
// per-client share, and eight of them at once held everyone's reads at p95 5 s.
import t from 'tap'
import { costOfFilter } from '../../../src/storage/sql/sql-engine.ts'

const ID = '6b0a3120f25c0601176b89c6'
const cases: Array<[string, Record<string, unknown>, 'simple' | 'expensive']> = [
  ['a read by id', { _id: ID }, 'simple'],
  ['by id, live, owned', { _id: ID, _deleted: false, _owner_id: ID }, 'simple'],
  ['no id', { foo: 'x' }, 'expensive'],
  ['ids', { _id: { $in: [ID] } }, 'expensive'],
  ['by id with a regular expression', { _id: ID, foo: { $regex: '(?=(a+)+b)' } }, 'expensive'],
  ['by id with $or', { _id: ID, $or: [{ foo: 'x' }, { bar: 'y' }] }, 'expensive'],
  ['by id with $where-like operators', { _id: ID, $expr: { $gt: ['$a', '$b'] } }, 'expensive'],
  ['by id with an object value', { _id: ID, yack: { s: 'x' } }, 'expensive']
]

for (const [name, filter, cost] of cases) {
  t.equal(costOfFilter(filter), cost, name)
}
