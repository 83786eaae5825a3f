// The rate-limit counters of a `quire serve` cluster, kept by the primary: a worker's question
// ("add 1 to this key", "reset it") goes over the cluster's IPC channel and the primary answers
// from its one table, so every worker draws on the same budget. A round trip costs a few tens
// of microseconds and only requests that are rate limited (logins, wrong passwords) pay it.
import type { Worker } from 'node:cluster'
import type { CounterTable, WindowCount, WindowCounters } from '../auth/throttle/window-counters.ts'

const ASK = 'quire:counter'
const ANSWER = 'quire:counted'

interface Question {
  type: typeof ASK
  id: number
  key: string
  windowMs: number
  by: number
  reset?: boolean
}
interface Answer {
  type: typeof ANSWER
  id: number
  count: number
  ttl: number
}

/** The primary: answers `worker`'s counter questions from `table`. */
export function answerCounterQuestions(worker: Worker, table: CounterTable): void {
  worker.on('message', (message: Question) => {
    if (message?.type !== ASK) return
    if (message.reset) table.reset(message.key)
    const { count, ttl } = message.reset
      ? { count: 0, ttl: 0 }
      : table.add(String(message.key), message.windowMs, message.by)
    const answer: Answer = { type: ANSWER, id: message.id, count, ttl }
    if (worker.isConnected()) worker.send(answer)
  })
}

/** A worker: counters that the primary keeps. A question fails when the primary is gone. */
export function askPrimaryCounters(): WindowCounters {
  const waiting = new Map<number, { resolve: (count: WindowCount) => void; reject: (err: Error) => void }>()
  let next = 0
  process.on('message', (message: Answer) => {
    if (message?.type !== ANSWER) return
    waiting.get(message.id)?.resolve({ count: message.count, ttl: message.ttl })
    waiting.delete(message.id)
  })
  process.once('disconnect', () => {
    for (const { reject } of waiting.values()) reject(new Error('the cluster primary is gone'))
    waiting.clear()
  })
  function ask(question: Omit<Question, 'type' | 'id'>): Promise<WindowCount> {
    const id = ++next
    return new Promise((resolve, reject) => {
      if (!process.connected || !process.send) return reject(new Error('the cluster primary is gone'))
      waiting.set(id, { resolve, reject })
      process.send({ type: ASK, id, ...question })
    })
  }
  return {
    add: async (key, windowMs, by) => await ask({ key, windowMs, by }),
    reset: async key => {
      await ask({ key, windowMs: 0, by: 0, reset: true })
    }
  }
}
