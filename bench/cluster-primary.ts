// The bench server with WORKERS > 1 (child process): like `quire serve`'s primary it forks the
// workers (node:cluster, one shared port) and answers their rate-limit counter questions; it
// reports the port to the bench, and its CPU time is its own plus every worker's. Once every
// worker has stopped it runs `afterStop` (letting go of the embedded server).
import cluster, { type Worker } from 'node:cluster'
import { ownCpuMicros, serveUntilStopped } from './child-server.ts'

/** Waits for one message from `worker` that `pick` accepts; fails if the worker exits first. */
function nextMessage<T>(worker: Worker, pick: (msg: Record<string, unknown>) => T | undefined): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (msg: Record<string, unknown>): void => {
      const value = pick(msg ?? {})
      if (value === undefined) return
      worker.off('message', onMessage)
      resolve(value)
    }
    worker.on('message', onMessage)
    worker.once('exit', code => reject(new Error(`a worker exited with code ${code}`)))
  })
}

/** Forks `count` workers (each runs this script as a worker and serves), then serves the bench as their primary. */
export async function serveAsPrimary(
  count: number,
  workerEnv: Record<string, string>,
  answerCounters: (worker: Worker) => void,
  afterStop: () => Promise<void> = async () => {}
): Promise<void> {
  const workers = Array.from({ length: count }, () => cluster.fork(workerEnv))
  workers.forEach(answerCounters)
  const ports = await Promise.all(workers.map(w => nextMessage(w, msg => msg.port as number | undefined)))
  const workersCpu = async (): Promise<number> => {
    const micros = await Promise.all(
      workers.map(w => {
        const answer = nextMessage(w, msg => msg.cpuMicros as number | undefined)
        w.send({ type: 'cpu' })
        return answer
      })
    )
    return micros.reduce((a, b) => a + b, ownCpuMicros())
  }
  const stop = async (): Promise<void> => {
    await Promise.all(
      workers.map(
        w =>
          new Promise(resolve => {
            w.once('exit', resolve)
            w.process.kill('SIGTERM')
          })
      )
    )
    await afterStop()
  }
  serveUntilStopped(ports[0], stop, workersCpu)
}
