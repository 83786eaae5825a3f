// Start errors are one line that names the fix, found before the slow start-up work (the
// database named here cannot be reached: a check that ran after it would say so instead): a
// port in use, a model file with a JSON syntax error (file, line, column) or an unknown type
// (the valid types and a suggestion), a missing MODELS_DIR (a warning); JXP's Mongoose type
// names load; a DATA_DIR where no directory can be made (/proc) fails at once; the commands that
// move a deployment's documents refuse a missing MODELS_DIR; a JSON body sent as a form is
// answered with the content type to send.
import t, { type Test } from 'tap'
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '../../../src/free-port.ts'
import { parseModelFile } from '../../../src/models/load-models.ts'
import { createTestApp } from '../../helpers/test-app.ts'
import { runCli } from '../../helpers/run-cli.ts'

/** Nothing listens on port 1: reaching the database would fail with "cannot reach PostgreSQL". */
const UNREACHABLE = 'postgres://quire@127.0.0.1:1/quire'

function modelsDir(t: Test, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'quire-models-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}

/** `quire serve`'s stderr as lines, without Node's own warnings. */
const errorLines = (stderr: string): string[] =>
  stderr.split('\n').filter(line => line !== '' && !/^\(node:\d+\)|^\(Use `node/.test(line))

t.test('a port in use: one line naming PORT, before the database is tried', async t => {
  const port = await freePort()
  const holder = createServer().listen(port, '127.0.0.1')
  await new Promise(resolve => holder.once('listening', resolve))
  t.teardown(() => holder.close())
  const result = await runCli(['serve'], {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: UNREACHABLE,
    MODELS_DIR: modelsDir(t, {})
  })
  t.equal(result.code, 1)
  t.same(errorLines(result.stderr), [
    `quire: port ${port} on 127.0.0.1 is in use (another quire serve, or another program): set PORT to a ` +
      `free port, or stop the other one`
  ])
})

t.test('model files: JSON syntax with line and column, an unknown type with the valid ones and a guess', async t => {
  const cases: Array<[string, string, string]> = [
    [
      'bad.json',
      '{\n  "name": "bad",\n  "fields": { "a": }\n}\n',
      "bad.json: not valid JSON at line 3, column 20: Unexpected token '}'"
    ],
    [
      'comma.json',
      '{\n  "name": "comma",\n  "fields": { "a": { "type": "string" }, }\n}\n',
      'comma.json: not valid JSON at line 3, column 42: Expected double-quoted property name'
    ],
    [
      'typo.json',
      JSON.stringify({ name: 'typo', fields: { title: { type: 'Strng' } } }),
      'typo.json: field title: type "Strng" is not a field type; the types are string, number, integer, ' +
        "boolean, date, object, array, password, id, mixed (or Mongoose's String, Number, Date, Boolean, " +
        'ObjectId, Mixed, [String]): did you mean "string"?'
    ],
    ['int.json', JSON.stringify({ name: 'int', fields: { n: { type: 'int' } } }), 'did you mean "integer"?']
  ]
  for (const [file, text, expected] of cases) {
    const dir = modelsDir(t, { [file]: text })
    const result = await runCli(['serve'], {
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      DATABASE_URL: UNREACHABLE,
      MODELS_DIR: dir
    })
    t.equal(result.code, 1, file)
    const lines = errorLines(result.stderr)
    t.equal(lines.length, 1, `${file}: one line, no stack`)
    t.ok(
      lines[0]?.startsWith(`quire: ${join(dir, file.split('../..')[0])}`) && lines[0].endsWith(expected),
      `${file}: ${lines[0]}`
    )
  }
})

t.test('a missing MODELS_DIR is a warning that names it', async t => {
  const result = await runCli(['serve'], {
    PORT: String(await freePort()),
    HOST: '127.0.0.1',
    DATABASE_URL: UNREACHABLE,
    MODELS_DIR: '/nonexistent/models'
  })
  const warning = result.stdout
    .split('\n')
    .filter(Boolean)
    .map(line => JSON.parse(line) as { level: number; msg: string })
    .find(entry => entry.level === 40)
  t.equal(
    warning?.msg,
    'MODELS_DIR /nonexistent/models does not exist: serving only the built-in user model (set MODELS_DIR ' +
      "to your models' folder)"
  )
  t.same(
    errorLines(result.stderr),
    ['quire: cannot reach PostgreSQL at 127.0.0.1:1: connection refused'],
    'then it goes on'
  )
})

t.test('a DATA_DIR that cannot be a directory: one line', async t => {
  const result = await runCli(['serve'], {
    PORT: String(await freePort()),
    HOST: '127.0.0.1',
    DATA_DIR: '/etc/hostname/data',
    MODELS_DIR: modelsDir(t, {})
  })
  t.equal(result.code, 1)
  t.same(errorLines(result.stderr), ['quire: cannot use /etc/hostname/data: a part of the path is not a directory'])
})

t.test(
  'a DATA_DIR where no directory can be made (in /proc): one line, not a hang',
  { skip: !existsSync('/proc') && 'no /proc' },
  async t => {
    const result = await runCli(
      ['serve'],
      { PORT: String(await freePort()), HOST: '127.0.0.1', DATA_DIR: '/proc/nope', MODELS_DIR: modelsDir(t, {}) },
      60_000
    )
    t.equal(result.code, 1, 'it exits (killed after a minute otherwise)')
    t.same(errorLines(result.stderr), [
      'quire: cannot use /proc/nope: no directory can be made there (/proc takes none)'
    ])
  }
)

t.test('backup, restore, import and export refuse a MODELS_DIR that does not exist: one line', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'quire-no-models-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const commands = [
    ['backup', join(dir, 'backup.ndjson')],
    ['restore', join(dir, 'backup.ndjson')],
    ['import', 'test', join(dir, 'docs.ndjson')],
    ['export', 'test']
  ]
  for (const args of commands) {
    const result = await runCli(args, { DATABASE_URL: UNREACHABLE, MODELS_DIR: '/nonexistent/models' })
    t.equal(result.code, 1, `${args[0]} exits with 1`)
    t.same(errorLines(result.stderr), [
      `quire: ${args[0]}: MODELS_DIR /nonexistent/models does not exist: run it in the folder holding ` +
        "the deployment's models/, or set MODELS_DIR to it (an empty folder if it has no models)"
    ])
  }
  t.strictSame(readdirSync(dir), [], 'no backup file, not even a partial one')
})

t.test("JXP's Mongoose type names load as Quire's types", async t => {
  const model = parseModelFile(
    JSON.stringify({
      name: 'jxp',
      fields: {
        title: { type: 'String' },
        n: { type: 'Number' },
        at: { type: 'Date' },
        ok: { type: 'Boolean' },
        user_id: { type: 'ObjectId', link: 'user' },
        extra: { type: 'Mixed' },
        tags: { type: '[String]' },
        when: { type: ['Date'] },
        nested: { type: 'Object', properties: { s: { type: 'String' } } }
      }
    }),
    'jxp.json'
  )
  t.same(
    Object.fromEntries(
      Object.entries(model.fields).map(([name, spec]) => [
        name,
        spec.items ? `${spec.type} of ${spec.items.type}` : spec.type
      ])
    ),
    {
      title: 'string',
      n: 'number',
      at: 'date',
      ok: 'boolean',
      user_id: 'id',
      extra: 'mixed',
      tags: 'array of string',
      when: 'array of date',
      nested: 'object'
    }
  )
  t.equal(model.fields.nested.properties?.s.type, 'string', 'nested fields too')
})

t.test('a mixed field holds any value; a JSON body sent as a form is answered with what to send', async t => {
  const dir = modelsDir(t, {
    'note.json': JSON.stringify({
      name: 'note',
      fields: { title: { type: 'String' }, extra: { type: 'Mixed' } },
      perms: { admin: 'crud' }
    })
  })
  const { app, admin } = await createTestApp(t, 'postgres', { modelsDir: dir })
  for (const extra of ['text', 5, { a: [1, 'b'] }, null]) {
    const res = await app.inject({
      method: 'POST',
      url: '/api/note',
      headers: { authorization: admin },
      payload: { title: 't', extra }
    })
    t.equal(res.statusCode, 200, `extra: ${JSON.stringify(extra)}`)
    t.same(res.json().data.extra, extra)
  }
  const asForm = await app.inject({
    method: 'POST',
    url: '/api/note',
    headers: { authorization: admin, 'content-type': 'application/x-www-form-urlencoded' },
    payload: '{"title":"t"}'
  })
  t.equal(asForm.statusCode, 400)
  t.same(asForm.json(), {
    status: 'fail',
    code: 'INVALID_BODY',
    message:
      "The body is JSON but was sent as a form (Content-Type: application/x-www-form-urlencoded, curl's " +
      'default for -d): send it with Content-Type: application/json'
  })
  const form = await app.inject({
    method: 'POST',
    url: '/api/note',
    headers: { authorization: admin, 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'title=a+form'
  })
  t.equal(form.json().data.title, 'a form', 'a real form still works')
})
