// Workers × pool against PostgreSQL's max_connections, checked at start: a `quire serve` whose
// workers would not fit is refused with one line (it used to start, and fail at run time with
// `sorry, too many clients already`, locking psql out too).
import t from 'tap'
import { checkConnections, readServerLimits, CONNECTIONS_BESIDES_POOL } from '../../src/cluster/database-connections.ts'
import { databaseUrl } from '../helpers/test-app.ts'
import { runCli } from '../helpers/run-cli.ts'
import { StartupError } from '../../src/startup-error.ts'

t.test('the arithmetic, and the line', async t => {
  const limits = { maxConnections: 100, reserved: 3 }
  t.doesNotThrow(() => checkConnections(7, 10, limits), `7 × ${10 + CONNECTIONS_BESIDES_POOL} fits in 97`)
  t.throws(
    () => checkConnections(8, 10, limits),
    new StartupError(
      `WORKERS 8 × (PG_POOL_SIZE 10 + ${CONNECTIONS_BESIDES_POOL}) ` +
        `= ${8 * (10 + CONNECTIONS_BESIDES_POOL)} PostgreSQL connections, but the server allows 97 ` +
        `(max_connections 100, 3 reserved): set WORKERS to at most 7, lower PG_POOL_SIZE, or raise ` +
        `max_connections`
    )
  )
})

t.test('on a PostgreSQL server', async t => {
  const url = await databaseUrl('postgres')
  const limits = await readServerLimits(url)
  t.ok(limits.maxConnections >= 100 && limits.reserved >= 3, `read from the server: ${JSON.stringify(limits)}`)
  const tooMany = Math.floor((limits.maxConnections - limits.reserved) / (10 + CONNECTIONS_BESIDES_POOL)) + 1
  const run = await runCli(['serve'], {
    DATABASE_URL: url,
    WORKERS: String(tooMany),
    PG_POOL_SIZE: '10',
    PORT: '0',
    LOG_LEVEL: 'warn'
  })
  t.equal(run.code, 1, 'refused')
  t.match(
    run.stderr,
    new RegExp(
      `^quire: WORKERS ${tooMany} × \\(PG_POOL_SIZE 10 \\+ ${CONNECTIONS_BESIDES_POOL}\\) = \\d+ ` +
        `PostgreSQL connections, but the server allows ${limits.maxConnections - limits.reserved} `
    ),
    run.stderr
  )
  t.equal(run.stderr.trim().split('\n').length, 1, 'one line')
})
