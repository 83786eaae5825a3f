// The README's typed client works as written: types generated from a running server's
// /openapi.json by openapi-typescript, the program examples/typed-client.ts (openapi-fetch:
// log in, create, list with a filter, read back) type-checked by tsc, then run against
// `quire serve` with the first admin created through POST /setup.
import t from 'tap'
import { execFile } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import openapiTS, { astToString } from 'openapi-typescript'
import { databaseUrl } from '../../helpers/test-app.ts'
import { REPO_ROOT, startServer } from '../../helpers/run-cli.ts'

const run = promisify(execFile)
const PROGRAM = join(REPO_ROOT, 'examples/typed-client.ts')

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node']
  }
}

t.test('the README shows the program', async t => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')
  t.ok(readme.includes(readFileSync(PROGRAM, 'utf8')), 'examples/typed-client.ts, verbatim')
})

t.test('a generated client type-checks and runs against quire serve', async t => {
  // No load shedding: on a busy test machine the program's requests must not turn into 503s.
  const server = await startServer({
    DATABASE_URL: await databaseUrl('postgres'),
    MODELS_DIR: join(REPO_ROOT, 'models'),
    BCRYPT_ROUNDS: '4',
    LOG_LEVEL: 'warn',
    MAX_EVENT_LOOP_DELAY_MS: '0'
  })
  t.teardown(async () => {
    server.child.kill('SIGTERM')
    await server.exited
  })
  const setup = await fetch(`${server.url}/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: 'change-me' })
  })
  t.equal(setup.status, 200, 'the first admin')

  const dir = mkdtempSync(join(tmpdir(), 'quire-client-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  // npx openapi-typescript http://localhost:3000/openapi.json -o quire-api.d.ts
  const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as object
  writeFileSync(join(dir, 'quire-api.d.ts'), astToString(await openapiTS(document as never)))
  copyFileSync(PROGRAM, join(dir, 'typed-client.ts'))
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }))
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG))
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'))

  const tsc = await run(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir]).catch(
    err => err as { stdout: string; code: number }
  )
  t.equal('code' in tsc ? tsc.code : 0, 0, `tsc: ${tsc.stdout || 'no error'}`)

  const program = await run(process.execPath, ['--import', 'tsx', 'typed-client.ts'], {
    cwd: dir,
    env: { ...process.env, API_URL: server.url }
  }).catch(err => err as { stdout: string; stderr: string; code: number })
  t.equal('code' in program ? program.code : 0, 0, `the program ran${'code' in program ? `: ${program.stderr}` : ''}`)
  t.match(
    program.stdout,
    /^1 test documents with foo=hello; the newest: [0-9a-f]{24}\nread back [0-9a-f]{24}: foo=hello, yack\.n=3\n$/
  )
})
