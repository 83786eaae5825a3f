// patches/postgres+3.4.9.patch: postgres.js's query object was the query's promise itself (a
// subclass of Promise carrying the query's fields). On V8 (Node 20) a pending promise with own
// properties, awaited and then settled from a socket's data, outlives young collections with
// everything awaiting it: every query, and every request's objects that awaited one, was promoted
// to the old generation (about 1.1 KB per bare query, 3 KB per read by id through Quire), which made
// the server's young collections 3-5 ms pauses under load. The query now keeps a plain promise beside
// it. Measured in a plain node process (test/helpers/query-promotion-probe.mjs): how much the old
// generation grows per query when a young collection follows each one; before the patch about 1,150
// bytes, after it about 100.
import t from 'tap'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { databaseUrl } from '../helpers/test-app.ts'

t.test('an awaited query does not outlive young collections', async t => {
  const probe = new URL('../helpers/query-promotion-probe.mjs', import.meta.url).pathname
  const { stdout } = await promisify(execFile)(process.execPath, [probe], {
    env: { ...process.env, DATABASE_URL: await databaseUrl('postgres'), NODE_OPTIONS: '' }
  })
  const { bytesPerQuery, wrongAnswers } = JSON.parse(stdout) as { bytesPerQuery: number; wrongAnswers: number }
  t.equal(wrongAnswers, 0, 'every query answered with its own value')
  t.ok(bytesPerQuery < 400, `the old generation grew ${bytesPerQuery} bytes per query (at most 400)`)
})
