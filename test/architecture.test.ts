// Fitness checks of the rules with one home (DESIGN.md section 7): only src/permissions
// marks input as authorized (engines accept nothing else), and the services and the
// MongoDB engine never reach into the SQL compiler. Also: no tracked source line is over 120
// columns (scripts/line-length.mjs, part of `npm run lint`), and no object made per request is an
// object literal with a getter or setter.
import t from 'tap'
import ts from 'typescript'
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

/**
 * Object literals with getters made once per change stream or socket (not per request): their cost
 * (below) is paid once for a connection that lives for minutes.
 */
const ACCESSOR_LITERALS_PER_CONNECTION = [
  'src/changes/transports/outbox.ts',
  'src/changes/transports/sse-sink.ts',
  'src/changes/transports/jxp-socket-sink.ts'
]

/** file:line of every getter or setter defined in an object literal. */
function accessorsInObjectLiterals(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true)
  const found: string[] = []
  const visit = (node: ts.Node): void => {
    if ((ts.isGetAccessor(node) || ts.isSetAccessor(node)) && ts.isObjectLiteralExpression(node.parent))
      found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

// V8 gives every evaluation of an object literal with accessors new accessor pairs in the old
// generation; they keep the accessors' closures, and all those reach, alive through every young
// collection until a full one. Made per request, that promoted every request's objects: 2.5 MB
// every 80 ms with 4 ms pauses at about 5,000 requests a second (plugins/request-scope.ts).
t.test('no object literal outside the per-connection transports defines a getter or setter', async t => {
  const offenders = APP.filter(file => !ACCESSOR_LITERALS_PER_CONNECTION.includes(file)).flatMap(
    accessorsInObjectLiterals
  )
  t.strictSame(offenders, [], 'per-request objects with accessors are classes (accessors on the prototype)')
  t.ok(
    ACCESSOR_LITERALS_PER_CONNECTION.every(file => accessorsInObjectLiterals(file).length > 0),
    'each listed transport still has one (the list names no file the rule no longer needs)'
  )
})
