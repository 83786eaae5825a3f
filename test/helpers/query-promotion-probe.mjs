// Run by test/deps/postgres-query-promotion.test.ts in a plain node process (tap's async hooks put
// properties on every promise, which is the very thing measured): awaits QUERIES queries on one
// connection, each followed by an idle moment and a young collection, and prints how many bytes
// the old generation grew per query (the median of three rounds, each after a full collection), and
// how many answers were wrong, as JSON.
import postgres from 'postgres'
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc')
const oldSpaceBytes = () => getHeapSpaceStatistics().find(space => space.space_name === 'old_space').space_used_size
const QUERIES = 300

const sql = postgres(process.env.DATABASE_URL, { max: 1, onnotice: () => {} })
const read = i => sql.unsafe('SELECT $1::text AS d', [`value ${i}`], { prepare: true })
let wrongAnswers = 0
/** Old-generation bytes gained per query over QUERIES queries. */
async function round() {
  gc({ type: 'major' })
  await new Promise(resolve => setTimeout(resolve, 100)) // the collection's concurrent sweeping done
  const before = oldSpaceBytes()
  for (let i = 0; i < QUERIES; i++) {
    const [row] = await read(i)
    if (row?.d !== `value ${i}`) wrongAnswers++
    await new Promise(resolve => setTimeout(resolve, 2))
    gc({ type: 'minor' })
  }
  return (oldSpaceBytes() - before) / QUERIES
}
// Warm: the code is compiled and optimized (which also takes old-generation space) before the rounds.
for (let i = 0; i < 3000; i++) await read(i)
const rounds = [await round(), await round(), await round()]
const bytesPerQuery = Math.round(rounds.sort((a, b) => a - b)[1])
await sql.end()
process.stdout.write(JSON.stringify({ bytesPerQuery, wrongAnswers }))
