// The change-feed scenario's subscribers: `count` SSE streams on GET /changes/test (the bench
// user's API key), each counting the `create` events it receives, open while a write scenario
// runs; the events they received per second are the feed's delivery rate. They run in their
// own process (bench/feed-subscriber-process.ts): on the same cores as the server under test,
// but never on the load generator's event loop.
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { log } from './report.ts'

export interface SubscriberCounts {
  events: number
  cpuMicros: number
}

export interface Subscribers {
  /** Events received by all subscribers so far, and the CPU time their process used (us). */
  counts: () => Promise<SubscriberCounts>
  close: () => Promise<void>
}

const OPEN_TIMEOUT_MS = 60_000

/** The child's next IPC message that has `key`. */
function nextMessage<T>(child: ChildProcess, key: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      done()
      reject(new Error(`the feed subscribers did not answer within ${OPEN_TIMEOUT_MS / 1000} s`))
    }, OPEN_TIMEOUT_MS)
    const onMessage = (msg: Record<string, unknown>): void => {
      if (key in msg || 'error' in msg) {
        done()
        'error' in msg ? reject(new Error(String(msg.error))) : resolve(msg[key] as T)
      }
    }
    const onExit = (code: number | null): void => {
      done()
      reject(new Error(`the feed subscribers' process exited with code ${code}`))
    }
    const done = (): void => {
      clearTimeout(timer)
      child.off('message', onMessage)
      child.off('exit', onExit)
    }
    child.on('message', onMessage)
    child.once('exit', onExit)
  })
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise(resolve => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}

export async function openSubscribers(baseUrl: string, apiKey: string, count: number): Promise<Subscribers> {
  const script = fileURLToPath(new URL('feed-subscriber-process.ts', import.meta.url))
  const child = spawn(process.execPath, ['--import', 'tsx', script, baseUrl, String(count)], {
    env: { ...process.env, BENCH_FEED_API_KEY: apiKey },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  })
  try {
    await nextMessage<number>(child, 'opened')
  } catch (err) {
    await stopChild(child)
    throw err
  }
  log(`  ${count} change-feed subscribers open (own process, pid ${child.pid})`)
  return {
    counts: async () => {
      const answer = nextMessage<SubscriberCounts>(child, 'counts')
      child.send({ type: 'count' })
      return await answer
    },
    close: () => stopChild(child)
  }
}
