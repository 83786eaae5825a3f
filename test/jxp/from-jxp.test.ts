// `quire models from-jxp` (issue 35) on JXP's own test models (vendored with its test suite):
// the Quire model files it writes load as Quire loads models, carry the fields, links, indexes,
// full-text fields and perms, stub the hooks and statics in model code, and the report names what
// needs a human. Also through the `quire` command line.
import t from 'tap'
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { modelsFromJxp } from '../../src/jxp/from-jxp/from-jxp-command.ts'
import { loadModels } from '../../src/models/load-models.ts'
import { USER_MODEL } from '../../src/auth/users/user-model.ts'
import { QUIRE_CLI_ARGS } from '../helpers/run-cli.ts'

const JXP_MODELS = new URL('../jxp-suite/jxp/src/models', import.meta.url).pathname

t.test("JXP's test models become Quire models", async t => {
  const out = mkdtempSync(join(tmpdir(), 'quire-from-jxp-'))
  const { written, report } = modelsFromJxp(JXP_MODELS, out)
  t.same(written.sort(), ['link.json', 'test.json', 'test.mjs'])
  t.same(
    readdirSync(out).sort(),
    ['link.json', 'test.json', 'test.mjs'],
    "no user.json: Quire's user model is built in"
  )
  const models = loadModels(out, [USER_MODEL])
  const test = models.get('test')!
  t.match(test.fields, {
    bar: { type: 'string', default: 'Some Default' },
    user_id: { type: 'id', link: 'user' },
    yack: { type: 'object' },
    shmack: { type: 'array', items: { type: 'string' } },
    password: { type: 'password' },
    other_link_id: { type: 'id', link: 'link' },
    array_link_id: { type: 'array', link: 'link', items: { type: 'id' } },
    composite_array: {
      type: 'array',
      items: { type: 'object', properties: { afoo: { type: 'string' }, abar: { type: 'number' } } }
    },
    date_field: { type: 'date' }
  })
  t.same(
    test.indexes.map(i => [i.fields, i.unique]),
    [
      [['bar'], true],
      [['date_field'], false]
    ]
  )
  t.same(test.fulltext?.fields, ['fulltext'])
  t.same(test.perms, { admin: 'crud', owner: 'crud', user: 'cur', all: 'r' })
  t.same(test.links.map(l => l.as).sort(), ['array_link', 'link', 'other_link', 'user'])
  const code = readFileSync(join(out, 'test.mjs'), 'utf8')
  t.match(code, /JXP pre\("save"\)/)
  t.match(code, /ImATeapotError/, "the hook's JXP source, for a human to port")
  t.match(code, /test: \{/, 'the callable static as a method stub')
  const mod = (await import(join(out, 'test.mjs'))) as { methods: Record<string, { letter: string }> }
  t.equal(mod.methods.test.letter, 'r', 'the stub is a module Quire can load')
  for (const expected of [
    /user: perms role "member" is a group/,
    /user\.email: set is code/,
    /urlid, temp_hash/,
    /apikey is built into Quire/,
    /callable_statics test/
  ]) {
    t.ok(
      report.some(line => expected.test(line)),
      `reported: ${expected}`
    )
  }
  t.same(modelsFromJxp(JXP_MODELS, out).written, [], 'existing files are not overwritten')
})

t.test('quire models from-jxp <dir> --out', async t => {
  const out = mkdtempSync(join(tmpdir(), 'quire-from-jxp-cli-'))
  const printed = execFileSync(process.execPath, [...QUIRE_CLI_ARGS, 'models', 'from-jxp', JXP_MODELS, '--out', out], {
    cwd: new URL('../..', import.meta.url).pathname,
    encoding: 'utf8'
  })
  t.match(printed, /wrote 3 file\(s\)/)
  t.match(printed, /needs a human:/)
})
