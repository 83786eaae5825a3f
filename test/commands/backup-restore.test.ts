// `quire backup` and `quire restore`, run as an operator runs them: a deployment with users,
// groups, credentials (a session, API keys, the setup mark), a provider link and documents of
// every model, soft-deleted ones too, backed up and restored into an empty PostgreSQL database
// and into the MongoDB engine on FerretDB; every document of every model compared. Also: the
// backup reads one moment while writes go on, and restore refuses a deployment that is not
// empty, a file cut short and models the deployment does not define.
import t, { type Test } from 'tap'
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { QUIET_SETTINGS, createTestApp, databaseUrl, type EngineName } from '../helpers/test-app.ts'
import { buildApp } from '../../app.ts'
import { loadConfig } from '../../src/config.ts'
import { TEST_SETTINGS, json, login } from '../helpers/auth-helpers.ts'
import { ferretdbBinary } from '../helpers/ferretdb.ts'
import { REPO_ROOT, runCli } from '../helpers/run-cli.ts'
import { backupModels } from '../../src/backup/backup-models.ts'
import { embeddedServerRunning } from '../../src/embedded/embedded-server.ts'
import { writeBackup } from '../../src/backup/write-backup.ts'
import { OAUTH_LINK_MODEL } from '../../src/oauth/oauth-link-model.ts'
import { newId } from '../../src/ids.ts'
import type { Engine } from '../../src/storage/engine.ts'
import type { Model } from '../../src/models/model-definition.ts'

/** An app on a restored database (no users of its own). */
async function appOn(t: Test, url: string): Promise<FastifyInstance> {
  const app = await buildApp({
    config: {
      ...loadConfig({ DATABASE_URL: url }),
      ...QUIET_SETTINGS,
      ...TEST_SETTINGS,
      modelsDir: MODELS_DIR,
      bcryptRounds: 4
    }
  })
  t.teardown(() => app.close())
  return app
}

const dir = mkdtempSync(join(tmpdir(), 'quire-backup-'))
const MODELS_DIR = join(REPO_ROOT, 'models')
const cli = (args: string[], url: string): ReturnType<typeof runCli> =>
  runCli(args, { DATABASE_URL: url, MODELS_DIR, LOG_LEVEL: 'warn' })

/** Every stored document of every model the backup holds, by model, parsed and ordered by _id. */
async function everything(engine: Engine, models: Model[]): Promise<Record<string, unknown[]>> {
  const all: Record<string, unknown[]> = {}
  for (const model of models) {
    const docs: Array<Record<string, unknown>> = []
    for await (const batch of engine.exportAll(model, 1000))
      docs.push(...batch.map(text => JSON.parse(text) as Record<string, unknown>))
    all[model.name] = docs.sort((a, b) => String(a._id).localeCompare(String(b._id)))
  }
  return all
}

/** The documents of a backup file, by model, ordered by _id. */
function documentsOf(path: string): Record<string, unknown[]> {
  const all: Record<string, Array<Record<string, unknown>>> = {}
  let model = ''
  for (const line of readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .slice(1, -1)
    .map(text => JSON.parse(text) as Record<string, unknown>)) {
    if (line._id === undefined) all[(model = line.model as string)] = []
    else all[model].push(line)
  }
  for (const docs of Object.values(all)) docs.sort((a, b) => String(a._id).localeCompare(String(b._id)))
  return all
}

/**
 * A deployment with something in every model: users with groups, a session and keys, a link, documents (one deleted).
 */
async function fillSource(
  app: FastifyInstance,
  createUser: (e: string, p: string, f?: Record<string, unknown>) => Promise<{ auth: string; id: string }>,
  admin: string
): Promise<{ aliceKey: string }> {
  const alice = await createUser('alice@example.com', 'alice-password', { groups: ['editors', 'sales'], name: 'Alice' })
  await createUser('bob@example.com', 'bob-password')
  const { apikey } = await login(app, 'alice@example.com', 'alice-password')
  await login(app, 'admin@example.com', 'admin-password')
  await app.db.syncModels([OAUTH_LINK_MODEL])
  await app.system.insert(OAUTH_LINK_MODEL, {
    _id: newId(),
    provider: 'google',
    subject: '1234',
    user_id: alice.id,
    createdAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
    __v: 0
  })
  for (let i = 0; i < 30; i++) {
    const res = await app.inject({
      method: 'POST',
      url: '/api/test',
      headers: { authorization: admin },
      payload: { foo: `doc ${i}`, shmack: ['a', String(i)], yack: { s: 'x', n: i } }
    })
    if (res.statusCode !== 200) throw new Error(res.body)
  }
  const link = json(
    await app.inject({
      method: 'POST',
      url: '/api/link',
      headers: { authorization: admin },
      payload: { name: 'a link', val: 7 }
    })
  ).data
  await app.inject({ method: 'DELETE', url: `/api/link/${link._id as string}`, headers: { authorization: admin } })
  return { aliceKey: apikey }
}

const source = await createTestApp(t, 'postgres', TEST_SETTINGS)
const { aliceKey } = await fillSource(source.app, source.createUser, source.admin)
const models = backupModels(source.app.models)
const sourceUrl = source.app.config.databaseUrl
const file = join(dir, 'backup.ndjson')

t.test('quire backup writes every model to a file, with progress', async t => {
  const result = await cli(['backup', file], sourceUrl)
  t.equal(result.code, 0, result.stderr)
  t.match(result.stderr, /backed up 37 documents of \d+ models to .*backup\.ndjson in [\d.]+ s/)
  t.equal(result.stdout, '')
  const lines = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map(line => JSON.parse(line) as Record<string, any>)
  t.match(lines[0], { quire_backup: 1, engine: 'postgres', consistent: true, models: models.map(m => m.name) })
  t.match(lines.at(-1), {
    end: { documents: 37, models: { user: 3, test: 30, link: 1, _credential: 2, _oauth_link: 1 } }
  })
})

async function restoreInto(t: Test, engine: EngineName): Promise<void> {
  const url = await databaseUrl(engine)
  const result = await cli(['restore', file], url)
  t.equal(result.code, 0, result.stderr)
  t.match(result.stderr, /restored 37 documents of \d+ models from .* in [\d.]+ s/)
  const target = { app: await appOn(t, url) }
  t.same(
    await everything(target.app.db, models),
    await everything(source.app.db, models),
    'every document, user, credential, group and link'
  )
  if (engine === 'ferretdb') {
    const fromFerret = join(dir, 'from-ferretdb.ndjson')
    const backup = await cli(['backup', fromFerret], url)
    t.equal(backup.code, 0, backup.stderr)
    t.match(
      backup.stderr,
      /warning: mongodb here cannot read one moment of the whole database \(MongoDB needs a replica set\)/
    )
    t.same(documentsOf(fromFerret), documentsOf(file), 'backed up again from the MongoDB engine: the same documents')
    const backToPostgres = await databaseUrl('postgres')
    t.equal((await cli(['restore', fromFerret], backToPostgres)).code, 0, 'and restored into PostgreSQL')
    t.same(
      await everything(await appOn(t, backToPostgres).then(app => app.db), models),
      await everything(source.app.db, models),
      'the same documents again'
    )
  }
  const byKey = await target.app.inject({ method: 'GET', url: '/api/user', headers: { apikey: aliceKey } })
  t.equal(byKey.statusCode, 200, 'an API key of the source works')
  t.same(json(byKey).data[0].groups, ['editors', 'sales'])
  t.equal(
    (await login(target.app, 'alice@example.com', 'alice-password')).user_id,
    json(byKey).data[0]._id,
    'and a password'
  )
  t.equal(
    (
      await target.app.inject({
        method: 'POST',
        url: '/setup',
        payload: { email: 'x@example.com', password: 'whatever' }
      })
    ).statusCode,
    409,
    'setup stays closed'
  )
  const again = await cli(['restore', file], url)
  t.equal(again.code, 1)
  t.match(
    again.stderr,
    new RegExp(
      String.raw`^quire: restore needs an empty deployment, and this one holds documents: .*\. ` +
        String.raw`Restore into a new DATA_DIR or an empty database; nothing was restored\n$`
    )
  )
  for (const held of ['user (3)', 'test (30)', 'link (1)', '_credential (2)', '_oauth_link (1)'])
    t.ok(again.stderr.includes(held), held)
}

t.test('restored into an empty PostgreSQL database: every document the same', async t => {
  await restoreInto(t, 'postgres')
})

const ferret = ferretdbBinary()
t.test(
  'restored into the MongoDB engine on FerretDB: every document the same',
  { skip: 'missing' in ferret ? ferret.missing : false },
  async t => {
    await restoreInto(t, 'ferretdb')
  }
)

t.test('the embedded default: restored into a new DATA_DIR and backed up from it, the same documents', async t => {
  const parent = mkdtempSync(join(tmpdir(), 'quire-backup-data-'))
  chmodSync(parent, 0o755) // as root, the server runs as postgres, who must reach DATA_DIR
  t.teardown(() => rmSync(parent, { recursive: true, force: true }))
  const env = { DATABASE_URL: '', DATA_DIR: join(parent, 'data'), MODELS_DIR, LOG_LEVEL: 'warn' }
  const restored = await runCli(['restore', file], env)
  t.equal(restored.code, 0, restored.stderr)
  const again = join(dir, 'from-embedded.ndjson')
  const backup = await runCli(['backup', again], env)
  t.equal(backup.code, 0, backup.stderr)
  t.same(documentsOf(again), documentsOf(file))
  t.notOk(embeddedServerRunning(env.DATA_DIR), 'the last command out stopped the embedded server')
})

t.test(
  'restore refuses, before writing anything: a file cut short, a file that is no backup, models this deployment lacks',
  async t => {
    const url = await databaseUrl('postgres')
    const text = readFileSync(file, 'utf8')
    const cases: Array<[string, string, RegExp]> = [
      [
        'cut.ndjson',
        text.slice(0, Math.floor(text.length / 2)),
        new RegExp(
          String.raw`^quire: .*cut\.ndjson is incomplete: it has no end line ` +
            String.raw`\(was the backup cut short\?\); nothing was restored\n$`
        )
      ],
      ['other.ndjson', '{"name":"x"}\n', /^quire: line 1: not a Quire backup \(no quire_backup header\)\n$/],
      [
        'future.ndjson',
        text.replace('"quire_backup":1', '"quire_backup":2'),
        /^quire: line 1: a backup of format 2, which this Quire cannot read \(it reads format 1\)\n$/
      ],
      [
        'unknown.ndjson',
        text.replace('"models":["user"', '"models":["invoice","user"'),
        new RegExp(
          '^quire: the backup holds models this deployment does not define: invoice ' +
            String.raw`\(give MODELS_DIR the model files of the backed-up deployment\); nothing was restored\n$`
        )
      ],
      ['missing.ndjson', '', /^quire: cannot read .*missing\.ndjson: no such file\n$/]
    ]
    await Promise.all(
      cases.map(async ([name, content, message]) => {
        if (name !== 'missing.ndjson') writeFileSync(join(dir, name), content)
        const result = await cli(['restore', join(dir, name)], url)
        t.equal(result.code, 1, name)
        t.match(result.stderr, message, name)
      })
    )
    const app = await appOn(t, url)
    t.equal(await app.system.count(app.models.get('user'), {}), 0, 'nothing was restored')
  }
)

t.test('a restore that fails while writing says how far it got', async t => {
  const lines = readFileSync(file, 'utf8').split('\n')
  const testLine = lines.indexOf('{"model":"test"}')
  lines.splice(testLine + 2, 0, lines[testLine + 1]) // a document twice: its batch is refused
  const twice = join(dir, 'twice.ndjson')
  writeFileSync(twice, lines.join('\n'))
  const result = await cli(['restore', twice], await databaseUrl('postgres'))
  t.equal(result.code, 1)
  t.match(
    result.stderr,
    new RegExp(
      String.raw`^quire: restore stopped after \d+ documents: A document with this unique value already exists\. ` +
        String.raw`This deployment now holds part of the backup: empty it \(a new DATA_DIR or database\) ` +
        String.raw`before restoring again\n$`
    )
  )
})

t.test('quire backup without a file writes to stdout', async t => {
  const result = await cli(['backup'], sourceUrl)
  t.equal(result.code, 0, result.stderr)
  t.equal(result.stdout.split('\n').length, readFileSync(file, 'utf8').split('\n').length)
  t.match(JSON.parse(result.stdout.split('\n')[0]), { quire_backup: 1 })
})

// Last: it writes to the source.
t.test('the backup reads one moment: what is written while it runs is not in it', async t => {
  let wrote = false
  const chunks: string[] = []
  const out = new Writable({
    highWaterMark: 1, // the backup waits for each write (and so for the writes below) before it reads on
    write(chunk, _encoding, done) {
      chunks.push(String(chunk))
      if (wrote || !String(chunk).includes('"_id"')) return done()
      wrote = true // while the first documents are written: a new document and a new user
      source.app
        .inject({
          method: 'POST',
          url: '/api/test',
          headers: { authorization: source.admin },
          payload: { foo: 'written during the backup' }
        })
        .then(async res => {
          t.equal(res.statusCode, 200, res.body)
          await source.createUser('late@example.com', 'late-password')
        })
        .then(() => done(), done)
    }
  })
  const summary = await writeBackup(source.app.db, models, out, () => {})
  t.ok(wrote)
  t.match(summary, { consistent: true, models: { user: 3, test: 30 } })
  const text = chunks.join('')
  t.notOk(text.includes('written during the backup'))
  t.notOk(text.includes('late@example.com'))
  t.equal(await source.app.system.count(source.app.models.get('test'), {}), 31, 'though they were stored')
})
