// Model code on every engine: hooks around writes (they may change the document, which
// is validated again, or refuse with a 4xx; after hooks cannot undo a write) and methods
// through /call (the letter each declares, item calls scoped to what the caller may
// read, results without password fields, nothing but exposed methods callable).
import t from 'tap'
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ENGINES, createTestApp } from '../../helpers/test-app.ts'
import { loadModelCode } from '../../../src/models/model-code.ts'
import { ModelRegistry } from '../../../src/models/model-registry.ts'
import { loadModels } from '../../../src/models/load-models.ts'

const MEMO = {
  name: 'memo',
  fields: {
    title: { type: 'string' },
    note: { type: 'string' },
    stamped: { type: 'string' },
    secret: { type: 'password' },
    tags: { type: 'array', items: { type: 'string' } }
  },
  perms: { admin: 'crud', owner: 'crud', user: 'cr', all: 'r' }
}

const MEMO_CODE = `
export const hooks = {
  beforeCreate (doc, ctx) {
    if (doc.title === 'refuse') ctx.refuse(422, 'no such title')
    if (doc.title === 'bad hook') return { ...doc, stamped: 42 }
    if (doc.title === 'in place') { doc.stamped = 'in place'; return }
    if (doc.title === 'in place, badly') { doc.stamped = 7; return }
    if (doc.title === 'deep, badly') { doc.tags.push(7); return }
    if (doc.title === 'looked') return
    return { ...doc, stamped: 'by ' + (ctx.caller.email ?? 'anonymous') }
  },
  beforeUpdate (changes) {
    if (changes.title === 'locked') throw Object.assign(new Error('locked by a hook'), { statusCode: 409 })
    if (typeof changes.note === 'string') changes.note = changes.note.toUpperCase()
  },
  afterCreate (doc) { if (doc.title === 'after fails') throw new Error('after hook exploded') },
  beforeDelete (id, ctx) { if (ctx.permanent) ctx.refuse(403, 'memos are never removed for good') },
  afterDelete (doc) { globalThis.deletedMemos = [...(globalThis.deletedMemos ?? []), doc.title] }
}
export const methods = {
  whoami: { letter: 'r', run: ctx => ({ user: ctx.caller.userId ?? null, params: ctx.params, body: ctx.body }) },
  count: { letter: 'r', run: async ctx => ({ n: await ctx.documents.count('memo') }) },
  reveal: { letter: 'r', run: () => ({ nested: [{ title: 't', secret: 'hash-1', password: 'hash-2', keep: 1 }] }) },
  title: { letter: 'r', run: ctx => ctx.document.title },
  purge: { letter: 'd', run: async ctx => { await ctx.documents.remove('memo', ctx.document._id); return 'purged' } },
  teapot: { letter: 'c', run: () => { throw Object.assign(new Error("I'm a teapot"), { statusCode: 418 }) } },
  crash: { letter: 'r', run: () => { throw new Error('the database password is hunter2') } }
}
`

function modelsDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'quire-code-'))
  cpSync(new URL('../../../models', import.meta.url).pathname, dir, { recursive: true })
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}

for (const engine of ENGINES) {
  t.test(`model code on ${engine}`, async t => {
    const { app, admin, createUser } = await createTestApp(t, engine, {
      modelsDir: modelsDir({ 'memo.json': JSON.stringify(MEMO), 'memo.mjs': MEMO_CODE })
    })
    const alice = await createUser('alice@example.com', 'alice-password')
    const bob = await createUser('bob@example.com', 'bob-password')
    const json = (res: { body: string }) => JSON.parse(res.body)
    const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, authorization?: string, payload?: object) =>
      app.inject({ method, url, headers: authorization ? { authorization } : {}, ...(payload && { payload }) })

    await t.test('hooks', async t => {
      const created = await send('POST', '/api/memo', alice.auth, { title: 'first', secret: 's3cret' })
      t.match(
        json(created).data,
        { title: 'first', stamped: 'by alice@example.com' },
        'beforeCreate changes the document'
      )
      t.notOk('secret' in json(created).data, 'the password is still hashed and hidden')
      const id = json(created).data._id
      const refused = await send('POST', '/api/memo', alice.auth, { title: 'refuse' })
      t.equal(refused.statusCode, 422)
      t.match(json(refused), { status: 'fail', code: 'REFUSED', message: 'no such title' }, 'or refuses with its 4xx')
      t.equal(json(await send('GET', '/api/memo?filter[title]=refuse')).count, 0, 'and nothing is stored')
      t.match(
        json(await send('POST', '/api/memo', alice.auth, { title: 'bad hook' })),
        { code: 'VALIDATION_FAILED' },
        'what a hook returns is validated again'
      )
      t.match(
        json(await send('POST', '/api/memo', alice.auth, { title: 'in place' })).data,
        { title: 'in place', stamped: 'in place' },
        'a hook may change the document in place'
      )
      t.match(
        json(await send('POST', '/api/memo', alice.auth, { title: 'in place, badly' })),
        { code: 'VALIDATION_FAILED' },
        'and what it changed is validated again'
      )
      t.match(
        json(await send('POST', '/api/memo', alice.auth, { title: 'deep, badly', tags: ['a'] })),
        { code: 'VALIDATION_FAILED' },
        'at any depth'
      )
      const looked = json(await send('POST', '/api/memo', alice.auth, { title: 'looked', note: 'as sent' })).data
      t.match(looked, { title: 'looked', note: 'as sent' }, 'a hook that only looks leaves the document as sent')
      t.notOk('stamped' in looked)
      const after = await send('POST', '/api/memo', alice.auth, { title: 'after fails' })
      t.equal(after.statusCode, 200, 'an after hook that throws does not undo the write')
      t.equal(json(await send('GET', '/api/memo?filter[title]=after fails')).count, 1)
      t.match(
        json(await send('PUT', `/api/memo/${id}`, alice.auth, { note: 'shout' })).data,
        { note: 'SHOUT' },
        'beforeUpdate may change the changes in place'
      )
      const locked = await send('PUT', `/api/memo/${id}`, alice.auth, { title: 'locked' })
      t.same(
        [locked.statusCode, json(locked).message],
        [409, 'locked by a hook'],
        "an error with a 4xx statusCode (as JXP's restify errors) is that reply"
      )
      const permanent = await send('DELETE', `/api/memo/${id}?_permaDelete=1`, alice.auth)
      t.same(
        [permanent.statusCode, json(permanent).message],
        [403, 'memos are never removed for good'],
        'beforeDelete refuses'
      )
      // Found by an audit: the hook ran for any caller who could read the document.
      const byReader = await send('DELETE', `/api/memo/${id}?_permaDelete=1`, bob.auth)
      t.match(
        [byReader.statusCode, json(byReader).message],
        [403, /^Not allowed to delete memo document/],
        'for a caller who may only read it, the hook does not run'
      )
      t.equal((await send('DELETE', `/api/memo/${id}`, alice.auth)).statusCode, 200)
      t.ok(
        (globalThis as { deletedMemos?: string[] }).deletedMemos?.includes('first'),
        'afterDelete gets the deleted document'
      )
      t.equal(
        (await send('DELETE', `/api/memo/${id}`, alice.auth)).statusCode,
        404,
        'a document that is not there: 404, no hook'
      )
    })

    await t.test('/call', async t => {
      const memo = json(await send('POST', '/api/memo', alice.auth, { title: 'called' })).data._id
      t.same(
        json(await send('POST', '/call/memo/whoami?x=1&apikey=undefined', undefined, { a: 1 })),
        { user: null, params: { x: '1' }, body: { a: 1 } },
        'anonymous (letter r, all: r), params without credentials, the body'
      )
      t.same(
        json(await send('GET', '/call/memo/whoami', alice.auth)),
        { user: alice.id, params: {}, body: {} },
        'GET too, as the caller'
      )
      t.same(
        json(await send('GET', '/call/memo/count', bob.auth)),
        { n: 4 },
        "methods use the documents with the caller's permissions"
      )
      t.same(
        json(await send('GET', '/call/memo/reveal')),
        { nested: [{ title: 't', keep: 1 }] },
        "no object in a result keeps a password field's name"
      )
      t.equal(json(await send('GET', `/call/memo/${memo}/title`)), 'called', 'an item call gets the document')
      t.equal((await send('GET', '/call/memo/0123456789abcdef01234567/title')).statusCode, 404)
      t.equal((await send('GET', '/call/memo/nope/title')).statusCode, 400, 'not an id')
      t.equal((await send('POST', `/call/memo/${memo}/purge`)).statusCode, 401, 'a d method: anonymous callers')
      t.equal(
        (await send('POST', `/call/memo/${memo}/purge`, bob.auth)).statusCode,
        404,
        "someone else's document is not there for an owner-only letter"
      )
      t.equal(json(await send('POST', `/call/memo/${memo}/purge`, alice.auth)), 'purged', 'its owner')
      t.equal((await send('GET', `/call/memo/${memo}/title`)).statusCode, 404, 'a deleted document cannot be called')
      const teapot = await send('POST', '/call/memo/teapot', alice.auth)
      t.same([teapot.statusCode, json(teapot).code], [418, 'REFUSED'])
      t.equal((await send('POST', '/call/memo/teapot')).statusCode, 401, 'a c method needs c')
      const crash = await send('GET', '/call/memo/crash')
      t.equal(crash.statusCode, 500)
      t.notOk(crash.body.includes('hunter2'), "a method's own error is logged, never sent")
    })

    await t.test('only exposed methods', async t => {
      for (const name of [
        'constructor',
        '__proto__',
        'toString',
        'hasOwnProperty',
        'valueOf',
        'prototype',
        'nope',
        'run',
        'hooks'
      ]) {
        const res = await send('POST', `/call/memo/${name}`)
        t.same([res.statusCode, json(res).code], [404, 'UNKNOWN_METHOD'], name)
      }
      t.equal((await send('POST', '/call/link/test')).statusCode, 404, 'a model without code')
      t.equal((await send('POST', '/call/user/whoami')).statusCode, 401, 'a model the caller may not see')
      t.equal((await send('POST', '/call/nomodel/x')).statusCode, 404)
      t.equal(json(await send('POST', '/call/test/test', admin)), 'Testing OKAY!', "the sample model's method")
    })
  })
}

t.test('model code is checked when it loads', async t => {
  const registry = new ModelRegistry(loadModels(new URL('../../../models', import.meta.url).pathname))
  const cases: Array<[string, string, RegExp]> = [
    ['test.mjs', 'export const hook = {}', /exports hook; a model module exports only `hooks` and `methods`/],
    ['test.mjs', 'export const hooks = { beforeSave () {} }', /unknown hook beforeSave/],
    ['test.mjs', 'export const methods = { go: () => 1 }', /method go must be \{ letter/],
    ['test.mjs', 'export const methods = { go: { letter: "x", run () {} } }', /method go must be/],
    [
      'test.mjs',
      'export const methods = { constructor: { letter: "r", run () {} } }',
      /"constructor" cannot be a method name/
    ],
    ['nomodel.mjs', 'export const methods = {}', /there is no model nomodel/],
    ['test.mjs', 'export const methods = {', /test\.mjs: cannot be loaded/]
  ]
  for (const [file, code, error] of cases) {
    const dir = mkdtempSync(join(tmpdir(), 'quire-code-'))
    writeFileSync(join(dir, file), code)
    await t.rejects(loadModelCode(dir, registry), { message: error }, `${file}: ${code}`)
  }
  const dir = mkdtempSync(join(tmpdir(), 'quire-code-'))
  writeFileSync(join(dir, 'test.cjs'), 'module.exports = {}')
  writeFileSync(join(dir, 'test.js'), 'module.exports = { methods: { ping: { letter: "r", run: () => "pong" } } }')
  writeFileSync(join(dir, 'package.json'), '{"type": "commonjs"}')
  t.same(
    (await loadModelCode(dir, registry)).methodNames('test'),
    ['ping'],
    'a CommonJS module works too; other files are not model code'
  )
})
