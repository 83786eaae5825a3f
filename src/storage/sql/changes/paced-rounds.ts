// Runs a shared task in rounds, one at a time, outside any request: each request is answered
// once a round that started after it has finished. Requests arriving while a round runs share
// the next round, which starts after a short pause, so that a steady stream of writes is
// numbered in batches rather than one round each (and nobody waits for the stream to stop).
import { outsideRequestScope } from '../../../runtime/request-scope.ts'

export interface PacedRounds {
  /** Settles once a round that started after this call has finished. */
  request: () => Promise<void>
  /** Settles when no round runs or waits. */
  idle: () => Promise<void>
}

export interface PacedRoundsOptions {
  /** One round; false when it could not finish now (run again after `retryMs`). */
  round: () => Promise<boolean>
  /** The pause before a round that requests made while the previous one ran. */
  pauseMs: number
  retryMs: number
  log: (msg: string) => void
}

const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

export function createPacedRounds({ round, pauseMs, retryMs, log }: PacedRoundsOptions): PacedRounds {
  let waiting: Array<() => void> = []
  let running: Promise<void> | undefined

  async function runRound(): Promise<void> {
    try {
      while (!(await round())) await sleep(retryMs)
    } catch (err) {
      log((err as Error).message)
    }
  }

  async function loop(): Promise<void> {
    while (waiting.length > 0) {
      const served = waiting
      waiting = []
      await runRound()
      for (const resolve of served) resolve()
      if (waiting.length > 0) await sleep(pauseMs)
    }
    running = undefined
  }

  return {
    request: () => {
      const answered = new Promise<void>(resolve => {
        waiting.push(resolve)
      })
      running ??= outsideRequestScope(loop)
      return answered
    },
    idle: async () => {
      await running
    }
  }
}
