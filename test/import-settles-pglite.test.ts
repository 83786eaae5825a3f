// `quire import` into a PGlite directory leaves it settled: the captured changes numbered and the
// loaded table VACUUMed, so that the next server does not do it in its first minute while every
// request waits (PGlite has one connection).
import t from 'tap'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { REPO_ROOT, runCli } from './helpers/run-cli.ts'
import { openPglite } from '../src/engines/pglite-client.ts'
import { UNNUMBERED } from '../src/engines/sql-change-sequencer.ts'
import { CHANGE_TABLE } from '../src/sql/change-capture-ddl.ts'

/** Enough rows for the housekeeping's VACUUM threshold (1,000 inserted rows plus a fifth of the table). */
const DOCUMENTS = 2_000

t.test('an import into a PGlite directory numbers its changes and VACUUMs the table before it exits', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'quire-import-settle-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'links.ndjson')
  writeFileSync(file, Array.from({ length: DOCUMENTS }, (_, i) => JSON.stringify({ name: `link ${i}`, val: i })).join('\n'))
  const data = join(dir, 'data')

  const result = await runCli(['import', 'link', file], { DATABASE_URL: `pglite://${data}`, MODELS_DIR: join(REPO_ROOT, 'models') })
  t.equal(result.code, 0, result.stderr)
  t.match(result.stderr, `imported ${DOCUMENTS} documents into link`)
  t.match(result.stderr, /vacuumed [^\n]*q_link/, 'the import reports the VACUUM of the loaded table')

  const client = await openPglite(data)
  t.teardown(() => client.close())
  const [{ unnumbered }] = await client.query(`SELECT count(*)::int AS unnumbered FROM ${CHANGE_TABLE} c WHERE ${UNNUMBERED}`, [], { cost: 'simple' })
  t.equal(unnumbered, 0, 'every captured change has its position')
  const [{ pages, visible }] = await client.query("SELECT relpages AS pages, relallvisible AS visible FROM pg_class WHERE relname = 'q_link'", [], { cost: 'simple' })
  t.ok(Number(pages) > 0 && Number(visible) === Number(pages), `every page of the table is marked all-visible (${String(visible)} of ${String(pages)})`)
})
