// The Quire server under test (child process): the real app from the build (dist/, what
// `npm start` runs; `npm run bench` builds it first), configured from the environment like
// `npm start`, on 127.0.0.1 and a free port. It logs (to stdout) only when LOG_LEVEL is set, so
// that logging costs the benchmark nothing. With WORKERS > 1 it is the primary of that many
// workers, each of which runs this script (bench/cluster-primary.ts).
import cluster from 'node:cluster'
import { serveUntilStopped } from './child-server.ts'
import { serveAsPrimary } from './cluster-primary.ts'

const built = (path: string): string => new URL(`../dist/${path}`, import.meta.url).href
const { buildApp } = await import(built('app.js')) as typeof import('../app.ts')
const { loadConfig } = await import(built('src/config.js')) as typeof import('../src/config.ts')

const config = loadConfig(process.env)
if (config.workers > 1 && cluster.isPrimary) {
  const { answerCounterQuestions } = await import(built('src/cluster/counter-channel.js')) as typeof import('../src/cluster/counter-channel.ts')
  const { createCounterTable } = await import(built('src/auth/window-counters.js')) as typeof import('../src/auth/window-counters.ts')
  const { WORKER_ENV } = await import(built('src/cluster/cluster-role.js')) as typeof import('../src/cluster/cluster-role.ts')
  const { relayCountChanges } = await import(built('src/cluster/count-channel.js')) as typeof import('../src/cluster/count-channel.ts')
  const table = createCounterTable(Date.now)
  await serveAsPrimary(config.workers, WORKER_ENV, worker => { answerCounterQuestions(worker, table); relayCountChanges(worker) })
} else {
  const app = await buildApp({ config, logger: process.env.LOG_LEVEL ? { level: config.logLevel } : false })
  await app.listen({ host: '127.0.0.1', port: 0 })
  serveUntilStopped((app.server.address() as { port: number }).port, () => app.close())
}
