// Paced rounds (numbering the SQL change log): a request is answered by a round that started
// after it, requests made during a round share the next one, which waits for the pause, and
// a steady stream of requests never keeps an earlier one waiting; a failing round is logged
// and still answers its requests.
import t from 'tap'
import { createPacedRounds } from '../../../../src/storage/sql/changes/paced-rounds.ts'

const tick = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

t.test('requests during a round share the next one, after the pause', async t => {
  const starts: number[] = []
  let finish: () => void = () => {}
  const rounds = createPacedRounds({
    round: async () => {
      starts.push(performance.now())
      await new Promise<void>(resolve => {
        finish = resolve
      })
      return true
    },
    pauseMs: 30,
    retryMs: 1,
    log: () => t.fail('no round fails')
  })
  let first = false
  void rounds.request().then(() => {
    first = true
  })
  await tick(1)
  t.equal(starts.length, 1, 'the first request starts a round at once')
  const later = [rounds.request(), rounds.request(), rounds.request()]
  finish()
  await tick(1)
  t.ok(first, 'the first request is answered by its round')
  t.equal(starts.length, 1, 'the next round waits for the pause')
  await tick(40)
  t.equal(starts.length, 2, 'one round serves the three requests made meanwhile')
  t.ok(starts[1] - starts[0] >= 29, 'after the pause')
  finish()
  await Promise.all(later)
  await rounds.idle()
  t.equal(starts.length, 2, 'and no round runs without a request')
})

t.test('a steady stream of requests does not keep an earlier one waiting', async t => {
  let rounds = 0
  const paced = createPacedRounds({
    round: async () => {
      rounds++
      await tick(2)
      return true
    },
    pauseMs: 5,
    retryMs: 1,
    log: () => {}
  })
  let stop = false
  const stream = (async () => {
    while (!stop) {
      void paced.request()
      await tick(1)
    }
  })()
  await tick(5)
  const answered = await Promise.race([paced.request().then(() => 'answered'), tick(2000).then(() => 'still waiting')])
  stop = true
  await stream
  await paced.idle()
  t.equal(answered, 'answered', 'answered while requests keep coming')
  t.ok(rounds >= 2, `rounds ran (${rounds})`)
})

t.test('a round that cannot finish runs again; one that fails is logged and answers', async t => {
  const logged: string[] = []
  let tries = 0
  const retrying = createPacedRounds({
    round: async () => ++tries >= 3,
    pauseMs: 1,
    retryMs: 1,
    log: msg => logged.push(msg)
  })
  await retrying.request()
  t.equal(tries, 3, 'ran until it could finish')
  const failing = createPacedRounds({
    round: async () => {
      throw new Error('no database')
    },
    pauseMs: 1,
    retryMs: 1,
    log: msg => logged.push(msg)
  })
  await failing.request()
  t.strictSame(logged, ['no database'], 'the failure is logged, the request answered')
})
