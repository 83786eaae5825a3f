// The Quire server under test (child process): the real app from the build (dist/, what
// `npm start` runs; `npm run bench` builds it first), configured from the environment like
// `npm start`, on 127.0.0.1 and a free port. With DATABASE_URL unset (the embedded default) it
// first starts or shares the PostgreSQL server of DATA_DIR and lets go of it when stopped, as
// `quire serve` does (attachDatabase: the last process out stops the server). It logs (to
// stdout) only when LOG_LEVEL is set, so that logging costs the benchmark nothing; what it does
// with the embedded server is always printed (one line at start and stop). With WORKERS > 1 it
// is the primary of that many workers, each of which runs this script (bench/cluster-primary.ts);
// the primary owns the embedded server, as `quire serve`'s does.
import cluster from 'node:cluster'
import { serveUntilStopped } from './child-server.ts'
import { serveAsPrimary } from './cluster-primary.ts'

const built = (path: string): string => new URL(`../dist/${path}`, import.meta.url).href
const { buildApp } = (await import(built('app.js'))) as typeof import('../app.ts')
const { loadConfig } = (await import(built('src/config.js'))) as typeof import('../src/config.ts')
const { attachDatabase } = (await import(
  built('src/embedded/attach-database.js')
)) as typeof import('../src/embedded/attach-database.ts')

const config = loadConfig(process.env)
const say = (msg: string): void => {
  process.stdout.write(`[serve ${process.pid}] ${msg}\n`)
}
if (config.workers > 1 && cluster.isPrimary) {
  const database = await attachDatabase(config, say)
  const { answerCounterQuestions } = (await import(
    built('src/cluster/counter-channel.js')
  )) as typeof import('../src/cluster/counter-channel.ts')
  const { createCounterTable } = (await import(
    built('src/auth/throttle/window-counters.js')
  )) as typeof import('../src/auth/throttle/window-counters.ts')
  const { WORKER_ENV } = (await import(
    built('src/cluster/cluster-role.js')
  )) as typeof import('../src/cluster/cluster-role.ts')
  const { relayCountChanges } = (await import(
    built('src/cluster/count-channel.js')
  )) as typeof import('../src/cluster/count-channel.ts')
  const table = createCounterTable(Date.now)
  await serveAsPrimary(
    config.workers,
    WORKER_ENV,
    worker => {
      answerCounterQuestions(worker, table)
      relayCountChanges(worker)
    },
    database.release
  )
} else if (cluster.isPrimary) {
  const database = await attachDatabase(config, say)
  const app = await buildApp({ config, logger: process.env.LOG_LEVEL ? { level: config.logLevel } : false }).catch(
    async (err: unknown) => {
      await database.release()
      throw err
    }
  )
  await app.listen({ host: '127.0.0.1', port: 0 })
  serveUntilStopped((app.server.address() as { port: number }).port, async () => {
    await app.close()
    await database.release()
  })
} else {
  const app = await buildApp({ config, logger: process.env.LOG_LEVEL ? { level: config.logLevel } : false })
  await app.listen({ host: '127.0.0.1', port: 0 })
  serveUntilStopped((app.server.address() as { port: number }).port, () => app.close())
}
