// bcrypt for every password of Quire: hashes and comparisons run on a few worker threads of
// their own (bcrypt-worker.ts, piscina's pool) at a low CPU priority, not on libuv's pool at the
// serving thread's, where each one took a whole core for tens of ms from requests. Threads start
// on demand and an idle one ends after IDLE_THREAD_MS (a thread holds about 10 MB; starting one
// costs tens of ms, once); an idle pool does not keep the process alive (a command or a stopping
// server exits without closing it).
import { availableParallelism } from 'node:os'
import { extname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Piscina } from 'piscina'
import type { BcryptTask } from './bcrypt-worker.ts'

/** How long a thread waits for work before it ends. */
const IDLE_THREAD_MS = 10_000

// The worker as the running code is: bcrypt-worker.ts under tsx (tests, `npm run dev`),
// bcrypt-worker.js in dist/ (`npm start`). On Node 20 tsx's import hooks do not reach worker
// threads, but its require hook does, and piscina requires the file before importing it: hence a
// default export there, which piscina looks for as the thread starts.
const WORKER_URL = new URL(`./bcrypt-worker${extname(new URL(import.meta.url).pathname)}`, import.meta.url)

const passwordThreads = new Piscina({
  filename: fileURLToPath(WORKER_URL),
  minThreads: 0,
  maxThreads: Math.min(4, availableParallelism()),
  idleTimeout: IDLE_THREAD_MS
})

const runOnPasswordThread = async (task: BcryptTask): Promise<string | boolean> => await passwordThreads.run(task)

/**
 * bcrypt on the password threads. An object, called through as `bcryptWork.hash(...)`, so that a
 * test can count the calls a request makes (test/client-bounds/bcrypt-budget.test.ts).
 */
export const bcryptWork = {
  /** The bcrypt hash of a password at this cost. */
  hash: async (password: string, rounds: number): Promise<string> =>
    (await runOnPasswordThread({ password, rounds })) as string,
  /** Whether a password matches a bcrypt hash. */
  compare: async (password: string, hash: string): Promise<boolean> =>
    (await runOnPasswordThread({ password, hash })) as boolean
}
