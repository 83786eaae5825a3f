// The bench table's arithmetic: each row's ratio is taken against its own yardstick (create
// against the bare insert, reads against the bare lookup), and the previous run's req/s of
// the same scenario and engine stands beside the new figure; 2 workers are compared with 1,
// authenticated reads with the anonymous one, and the embedded default's reads with PostgreSQL's.
import t from 'tap'
import { rmSync } from 'node:fs'
import {
  addPrevious,
  addRatios,
  describeAuthCost,
  describeCachedList,
  describeDefaultAgainstPostgres,
  describeScaling,
  formatTable,
  showProgress,
  writeResults,
  type ResultRow
} from '../bench/report.ts'
import { yardstickOf } from '../bench/scenarios.ts'
import { readBenchOptions, resultsFileOf } from '../bench/options.ts'

const row = (scenario: string, engine: string, reqPerSec: number): ResultRow => ({
  scenario,
  engine,
  status: 'ok',
  reqPerSec
})

t.test('progress in a log: a line at each quarter passed, whatever the batch size', async t => {
  const lines: string[] = []
  const write = process.stdout.write
  const wasTTY = process.stdout.isTTY
  process.stdout.isTTY = false
  process.stdout.write = ((chunk: string) => {
    lines.push(chunk)
    return true
  }) as typeof process.stdout.write
  try {
    for (let done = 2000; done <= 110_000; done += 2000) showProgress('seeding x: link', done, 110_000)
  } finally {
    process.stdout.write = write
    process.stdout.isTTY = wasTTY
  }
  t.same(
    lines.map(l => l.replace(/^\[.*?\] /, '').trim()),
    [
      'seeding x: link 28000/110000 (25%)',
      'seeding x: link 56000/110000 (50%)',
      'seeding x: link 84000/110000 (76%)',
      'seeding x: link 110000/110000 (100%)'
    ]
  )
})

t.test("ratios against each scenario's yardstick", async t => {
  const rows = [
    row('baseline', 'baseline', 4000),
    row('baseline-create', 'baseline', 2000),
    row('get-by-id', 'postgres', 3600),
    row('create', 'postgres', 1700)
  ]
  addRatios(rows, yardstickOf)
  t.same(
    rows.map(r => r.ratio),
    [1, 1, 0.9, 0.85]
  )
})

t.test('the previous run beside the new one', async t => {
  const path = writeResults(
    { rows: [row('create', 'postgres', 666), { ...row('list', 'postgres', 10), status: 'failed' }] },
    'test-previous.json'
  )
  t.teardown(() => {
    rmSync(path)
  })
  const rows = [row('create', 'postgres', 700), row('create', 'default', 300), row('list', 'postgres', 50)]
  addPrevious(rows, 'test-previous.json')
  t.same(
    rows.map(r => r.previousReqPerSec),
    [666, undefined, undefined],
    'same scenario and engine, measured runs only'
  )
  t.match(formatTable(rows), /create\s+\| postgres \|\s+700 \|\s+666 \|/)
})

t.test('a run of another size keeps its own previous run', async t => {
  t.equal(resultsFileOf(readBenchOptions({})), 'latest.json', 'the default size and connections')
  t.equal(
    resultsFileOf(readBenchOptions({ BENCH_SCENARIOS: 'baseline', BENCH_DURATION: '20' })),
    'latest.json',
    'whatever scenarios and duration'
  )
  const large = readBenchOptions({ BENCH_TEST_DOCS: '1000000', BENCH_LINK_DOCS: '1000', BENCH_CONNECTIONS: '10' })
  t.equal(
    resultsFileOf(large),
    'latest-1000000-docs-1000-links-10-connections.json',
    'the 1,000,000-document run: a file of its own'
  )
  t.equal(
    resultsFileOf(readBenchOptions({ BENCH_ENGINES: 'postgres,ferretdb' })),
    'latest-postgres-ferretdb.json',
    'a run on FerretDB: a file of its own'
  )
})

t.test('the scaling from one worker to two', async t => {
  const rows = [
    row('get-by-id', 'postgres', 3000),
    row('get-by-id-2-workers', 'postgres', 4500),
    row('get-by-id', 'default', 900),
    { scenario: 'get-by-id-2-workers', engine: 'default', status: 'failed' as const }
  ]
  t.same(
    describeScaling(rows),
    ['workers on postgres: get-by-id 3000 req/s with 1 worker, 4500 req/s with 2: x1.50'],
    'one line, for the engine that ran both'
  )
})

t.test('authenticated reads against the anonymous one, per engine', async t => {
  const rows = [
    row('get-by-id', 'postgres', 8000),
    row('get-basic-auth', 'postgres', 7000),
    row('get-api-key', 'postgres', 7600),
    row('get-bearer', 'postgres', 7200),
    row('get-by-id', 'default', 1000),
    { ...row('get-api-key', 'default', 950), status: 'errors' as const }
  ]
  t.same(describeAuthCost(rows), [
    'authenticated reads on postgres against anonymous get-by-id (8000 req/s; target >= 0.9): Basic 0.88 ' +
      '(NOT met), API key 0.95 (met), bearer 0.90 (met)',
    'authenticated reads on default against anonymous get-by-id (1000 req/s; target >= 0.9): API key 0.95 ' +
      '(not judged (errors))'
  ])
})

t.test('authenticated reads against the anonymous reads measured just before them, when the run has them', async t => {
  const rows = [
    row('get-by-id', 'postgres', 9000),
    row('get-anonymous', 'postgres', 8000),
    row('get-basic-auth', 'postgres', 7400),
    row('get-api-key', 'postgres', 7000)
  ]
  t.same(describeAuthCost(rows), [
    'authenticated reads on postgres against anonymous get-anonymous (8000 req/s; target >= 0.9): Basic ' +
      '0.93 (met), API key 0.88 (NOT met)'
  ])
})

t.test('the embedded default against PostgreSQL: get-by-id and the lists, in the same run', async t => {
  const rows = [
    row('get-by-id', 'postgres', 8000),
    row('list', 'postgres', 3000),
    row('list-shmack', 'postgres', 2000),
    row('search', 'postgres', 2500),
    row('get-by-id', 'default', 7600),
    row('list', 'default', 2500),
    { ...row('list-shmack', 'default', 1900), status: 'errors' as const },
    row('search', 'default', 1000),
    row('list-big', 'default', 900)
  ]
  t.same(
    describeDefaultAgainstPostgres(rows),
    [
      'default against postgres, req/s (target >= 0.9): get-by-id 0.95 (met), list 0.83 (NOT met), ' +
        'list-shmack 0.95 (not judged (errors))'
    ],
    'search is not judged; a scenario PostgreSQL did not run is left out'
  )
  t.same(describeDefaultAgainstPostgres(rows.filter(r => r.engine === 'postgres')), [], 'nothing without the default')
})

t.test('the cached list against the bare lookup, per engine', async t => {
  const rows = [
    row('baseline', 'baseline', 4000),
    row('list-cached', 'postgres', 3800),
    row('list-cached', 'default', 2000)
  ]
  addRatios(rows, yardstickOf)
  t.match(describeCachedList(rows), [
    /list-cached on postgres at 0\.95 .*target >= 0\.9.*: met/,
    /list-cached on default at 0\.50 .*: NOT met/
  ])
})
