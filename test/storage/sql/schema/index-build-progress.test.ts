// Long schema changes report their progress while they run: index builds on a PostgreSQL server
// their phase and percent, anything else the time taken so far.
import t from 'tap'
import { openPostgres } from '../../../../src/storage/postgres/postgres-client.ts'
import { describeProgress, withBuildProgress } from '../../../../src/storage/sql/schema/index-build-progress.ts'
import { databaseUrl } from '../../../helpers/test-app.ts'

t.test('a progress row reads as phase and percent', async t => {
  t.equal(
    describeProgress({ phase: 'building index: scanning table', done: '250', total: '1000' }),
    'building index: scanning table 25%'
  )
  t.equal(
    describeProgress({ phase: 'initializing', done: 0, total: 0 }),
    'initializing',
    'no percent before the totals are known'
  )
})

t.test('a long CREATE INDEX logs its phase and percent while it runs', async t => {
  const builder = openPostgres(await databaseUrl('postgres'), 60_000)
  t.teardown(() => builder.close())
  await builder.exec(
    'CREATE TABLE big AS SELECT g AS n, md5(g::text) || md5((g * 7)::text) AS s FROM generate_series(1, 400000) g'
  )
  const lines: string[] = []
  await builder.transaction(async tx => {
    await withBuildProgress(
      builder,
      'big',
      'building index big_s',
      msg => lines.push(msg),
      () => tx.exec('CREATE INDEX big_s ON big (s, n)'),
      20
    )
  })
  t.ok(lines.length > 0, `progress was logged (${lines.length} lines)`)
  const shape = /^building index big_s: (initializing|building index: .+|\d+ s so far)$/
  t.equal(
    lines.find(line => !shape.test(line)),
    undefined,
    'every line is a phase (with its percent) or the time so far'
  )
  t.ok(
    lines.some(line => / \d+%$/.test(line)),
    'some lines carry a percent'
  )
  const [row] = await builder.query("SELECT count(*)::int AS n FROM pg_indexes WHERE indexname = 'big_s'")
  t.equal(row.n, 1, 'the index was built')
})

t.test('without a progress view the time so far is logged', async t => {
  const builder = openPostgres(await databaseUrl('postgres'), 60_000)
  t.teardown(() => builder.close())
  const lines: string[] = []
  await withBuildProgress(
    undefined,
    'none',
    'rewriting',
    msg => lines.push(msg),
    () => builder.exec('SELECT pg_sleep(0.5)'),
    40
  )
  t.ok(lines.length >= 3, `${lines.length} lines in half a second at 40 ms`)
  t.ok(
    lines.every(line => /^rewriting: \d+ s so far$/.test(line)),
    lines[0]
  )
  const after = lines.length
  await new Promise(resolve => setTimeout(resolve, 120))
  t.equal(lines.length, after, 'nothing is logged once the work has ended')
})
