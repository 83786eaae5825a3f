// The default number of expensive statements at once: half the pool, never more than the database
// cores this process may count on, and always a main connection left for simple statements.
import t from 'tap'
import { defaultExpensiveSlots } from '../../../src/storage/postgres/postgres-client.ts'

t.test('a 2-core host (one core for expensive statements) runs 1 at once from a pool of 10, not 5', async t => {
  t.equal(defaultExpensiveSlots(10, 8, 1), 1)
  t.equal(defaultExpensiveSlots(10, 8, 3), 3, 'a 4-core host: 3')
})

t.test('many cores leave the pool as the limit: half of it', async t => {
  t.equal(defaultExpensiveSlots(10, 8, 63), 5)
  t.equal(defaultExpensiveSlots(10, 8), 5, 'no core count known: half the pool')
  t.equal(defaultExpensiveSlots(40, 32, 7), 7)
})

t.test('a small pool keeps a main connection for simple statements', async t => {
  t.equal(defaultExpensiveSlots(2, 2, 8), 1)
  t.equal(defaultExpensiveSlots(1, 1, 8), 1, 'never none')
  t.equal(defaultExpensiveSlots(5, 4, 8), 2)
})
