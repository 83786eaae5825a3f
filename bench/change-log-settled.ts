// Waits until a freshly started Quire server has numbered every change captured before it ran
// (the seed's inserts, the baseline's creates: tens of thousands of rows), so that this
// one-time catch-up is not measured as part of the first scenario's requests.
import postgres from 'postgres'
import { setTimeout as sleep } from 'node:timers/promises'
import { CHANGE_TABLE } from '../src/sql/change-capture-ddl.ts'
import { log } from './report.ts'

const SETTLE_TIMEOUT_MS = 300_000

export async function waitForChangeLog (url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  try {
    const started = Date.now()
    for (let logged = false; ;) {
      const [{ waiting }] = await sql.unsafe(`SELECT count(*)::int AS waiting FROM ${CHANGE_TABLE} WHERE pos IS NULL`)
      if (waiting === 0) return
      if (!logged) log(`  waiting for the server to number ${waiting as number} captured changes`)
      logged = true
      if (Date.now() - started > SETTLE_TIMEOUT_MS) throw new Error(`the server left ${waiting as number} changes unnumbered for ${SETTLE_TIMEOUT_MS / 1000} s`)
      await sleep(200)
    }
  } finally {
    await sql.end()
  }
}
