// Fitness checks of the rules with one home (DESIGN.md section 7): only src/permissions
// marks input as authorized (engines accept nothing else), and the services and the
// MongoDB engine never reach into the SQL compiler.
import t from 'tap'
import { readdirSync, readFileSync, statSync } from 'node:fs'
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
