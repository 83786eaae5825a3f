// The table the baseline's inserts go to: a copy of q_test with its columns, indexes, storage
// parameters and documents, without its change-capture trigger (a bare insert), so that the
// scenarios after them read the seeded collection as it was. Made while seeding, in batches with
// progress (a 1,000,000-document run copies for minutes), and only when a baseline write runs.
import postgres from 'postgres'
import { TABLE_STORAGE } from '../src/compiler/ddl/schema-ddl.ts'
import { showProgress } from './report.ts'

const BATCH = 50_000

export async function copyTestTable(url: string, total: number): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  try {
    // LIKE copies no storage parameters: they are given again.
    await sql.unsafe(`create table q_baseline_create (like q_test including all) with (${TABLE_STORAGE})`)
    let after = ''
    for (let done = 0; done < total; ) {
      const [moved] = await sql.unsafe(
        `with moved as (insert into q_baseline_create (_id, doc) select _id, doc from q_test where _id > ` +
          `$1 order by _id limit ${BATCH} returning _id) ` +
          'select count(*)::int as n, max(_id) as last from moved',
        [after]
      )
      if (moved.n === 0) break
      done += moved.n as number
      after = moved.last as string
      showProgress('copying q_test for the baseline inserts', done, total)
    }
    await sql.unsafe('analyze q_baseline_create')
  } finally {
    await sql.end()
  }
}
