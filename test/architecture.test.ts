// Fitness checks of the rules with one home (DESIGN.md section 7): only src/permissions
// marks input as authorized (engines accept nothing else), and the services and the
// MongoDB engine never reach into the SQL compiler. Also: no tracked source line is over 120
// columns (scripts/line-length.mjs, part of `npm run lint`).
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'

const ROOT = new URL('..', import.meta.url).pathname

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap(name => {
    const path = join(dir, name)
    return statSync(join(ROOT, path)).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : []
  })
}

const importsOf = (file: string): string[] =>
  [...readFileSync(join(ROOT, file), 'utf8').matchAll(/from '([^']+)'/g)].map(m => m[1])

const APP = ['src', 'plugins', 'routes', 'schemas'].flatMap(sourceFiles).concat(['app.ts'])

t.test('only src/permissions marks input as authorized', async t => {
  const offenders = APP.filter(
    file =>
      !file.startsWith('src/permissions/') &&
      readFileSync(join(ROOT, file), 'utf8').match(
        /import \{[^}]*\bauthorized\b[^}]*\} from '[^']*permissions\/authorized\.ts'/
      )
  )
  t.strictSame(offenders, [], 'no other module imports the `authorized` marker')
})

t.test('services, validation, permissions and the MongoDB engine do not use the SQL compiler', async t => {
  const guarded = APP.filter(
    file =>
      /^src\/(documents|query|permissions|validation|auth|transfer)\//.test(file) ||
      /^src\/storage\/mongodb\//.test(file)
  )
  const offenders = guarded.filter(file => importsOf(file).some(spec => spec.includes('/compiler/')))
  t.strictSame(
    offenders.map(f => relative('.', f)),
    []
  )
})

/** scripts/line-length.mjs on `files` (none: every tracked source file), from the repository's root. */
const lineLength = (files: string[] = []) =>
  spawnSync(process.execPath, ['scripts/line-length.mjs', ...files], { cwd: ROOT, encoding: 'utf8' })

t.test('no tracked source line is over 120 columns', async t => {
  const result = lineLength()
  t.equal(result.stdout, '', 'no line listed')
  t.equal(result.status, 0)
})

t.test('the line-length check lists a line of 121 columns and fails', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'quire-lines-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'long.ts')
  writeFileSync(file, `${'x'.repeat(120)}\n// ${'y'.repeat(118)}\n`)
  const result = lineLength([file])
  t.equal(result.status, 1)
  t.equal(result.stdout, `${file}:2: 121 columns (at most 120)\n1 line over 120 columns\n`)
})
