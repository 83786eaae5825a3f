// Times a page of 100 documents with and without populate (a single and a many link) on the
// MongoDB engine, against the server of MONGODB_URL, or a FerretDB it starts (test/helpers/ferretdb.ts).
// Run: npx tsx test/manual/populate-timing.ts   (docs/mongodb.md quotes its output)
import { openEngine } from '../../src/storage/open-engine.ts'
import { ITEM, MODELS, TAG, makeDoc, populateOf } from '../helpers/engine-fixtures.ts'
import { ferretdbBinary, startFerretDB } from '../helpers/ferretdb.ts'
import { authorized } from '../../src/permissions/authorized.ts'
import { newId } from '../../src/ids.ts'

const found = ferretdbBinary()
const server = process.env.MONGODB_URL ? undefined : 'bin' in found ? await startFerretDB(found.bin) : undefined
if (!process.env.MONGODB_URL && !server)
  throw new Error('set MONGODB_URL or build FerretDB (bash .ci/install-ferretdb)')
const url = process.env.MONGODB_URL ?? `${server!.url}populate_timing_${newId()}`
const engine = await openEngine(url, { statementTimeoutMs: 30_000 })
try {
  await engine.syncModels(MODELS)
  const tags = Array.from({ length: 50 }, (_, i) => makeDoc({ label: `tag${i}` }))
  await engine.insertMany(TAG, tags)
  await engine.insertMany(
    ITEM,
    Array.from({ length: 1000 }, (_, i) =>
      makeDoc({
        name: `item${i}`,
        n: i,
        main_tag_id: tags[i % 50]._id,
        tag_ids: [tags[i % 50]._id, tags[(i + 7) % 50]._id, tags[(i + 13) % 50]._id]
      })
    )
  )
  const base = { filter: authorized({ _deleted: false }), sort: [], limit: 100, skip: 0, count: false }
  const plain = authorized({ ...base, populate: [] })
  const populated = authorized({ ...base, populate: [populateOf('main_tag_id'), populateOf('tag_ids')] })
  for (const [name, query] of [
    ['no populate', plain],
    ['populate a single and a many link', populated]
  ] as const) {
    for (let i = 0; i < 5; i++) await engine.find(ITEM, query)
    const times: number[] = []
    for (let i = 0; i < 30; i++) {
      const start = process.hrtime.bigint()
      await engine.find(ITEM, query)
      times.push(Number(process.hrtime.bigint() - start) / 1e6)
    }
    times.sort((a, b) => a - b)
    console.log(
      `${name}: median ${times[15].toFixed(1)} ms, p90 ${times[27].toFixed(1)} ms (page of 100 of 1000 ` +
        `documents, 30 runs)`
    )
  }
} finally {
  await engine.close()
  await server?.stop()
}
