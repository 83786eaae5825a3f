// JXP's model discovery (GET /model, GET /model/{name}) and group routes
// (/groups/{user_id}) on every engine: callers see only the models they hold a letter
// on, password fields show their type but no value, and only admins change groups.
import t from 'tap'
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ENGINES, createTestApp } from '../../helpers/test-app.ts'

const VAULT = {
  name: 'vault',
  description: 'admins only',
  fields: { code: { type: 'string', enum: ['a', 'b'] }, pin: { type: 'password', default: 'changeme' } },
  required: ['code'],
  indexes: [{ fields: ['code'], unique: true }]
}

function modelsWithVault(): string {
  const dir = mkdtempSync(join(tmpdir(), 'quire-discovery-'))
  cpSync(new URL('../../../models', import.meta.url).pathname, dir, { recursive: true })
  writeFileSync(join(dir, 'vault.json'), JSON.stringify(VAULT))
  return dir
}

for (const engine of ENGINES) {
  t.test(`model discovery and groups on ${engine}`, async t => {
    const { app, admin, createUser } = await createTestApp(t, engine, { modelsDir: modelsWithVault() })
    const alice = await createUser('alice@example.com', 'alice-password')
    const json = (res: { body: string }) => JSON.parse(res.body)
    const get = (url: string, authorization?: string) =>
      app.inject({ url, headers: authorization ? { authorization } : {} })

    await t.test('GET /model lists what the caller may use', async t => {
      const names = async (authorization?: string) =>
        json(await get('/model', authorization))
          .map((m: { model: string }) => m.model)
          .sort()
      t.same(await names(), ['link', 'test'], 'anonymous: the models open to all')
      t.same(await names(alice.auth), ['link', 'test', 'user'], 'a user: also the user model (owner rights)')
      t.same(await names(admin), ['link', 'test', 'user', 'vault'], 'an admin: every model')
      const test = json(await get('/model')).find((m: { model: string }) => m.model === 'test')
      t.match(test, {
        model: 'test',
        file: 'test.json',
        perms: { admin: 'crud', owner: 'crud', user: 'cr', all: 'r' },
        letters: 'r',
        fields: { foo: { type: 'string' }, password: { type: 'password' } },
        links: [
          { field: 'link_id', as: 'link', model: 'link', many: false },
          { field: 'other_link_id', as: 'other_link', model: 'link', many: false },
          { field: 'array_link_id', as: 'array_link', model: 'link', many: true }
        ],
        indexes: [
          { fields: ['foo'], unique: false },
          { fields: ['bar'], unique: false },
          { fields: ['link_id'], unique: false }
        ],
        fulltext: ['fulltext'],
        methods: [{ name: 'test', letter: 'r' }]
      })
      t.equal(
        json(await get('/model', alice.auth)).find((m: { model: string }) => m.model === 'test').letters,
        'crud',
        'the letters the caller holds'
      )
      const vault = json(await get('/model', admin)).find((m: { model: string }) => m.model === 'vault')
      t.same(vault.fields.pin, { type: 'password' }, 'a password field: its type, never its default')
      t.equal(vault.description, 'admins only')
    })

    await t.test("GET /model/{name}: JXP's paths", async t => {
      const paths = json(await get('/model/test'))
      t.same(paths.foo, {
        path: 'foo',
        instance: 'String',
        isRequired: false,
        options: { type: 'string', index: true }
      })
      t.same(paths.link_id, {
        path: 'link_id',
        instance: 'ObjectID',
        isRequired: false,
        options: { type: 'id', index: true, link: 'link', map_to: 'link' }
      })
      t.same(paths.array_link_id, {
        path: 'array_link_id',
        instance: 'Array',
        isRequired: false,
        options: { type: 'array', link: 'link', map_to: 'array_link' },
        caster: { instance: 'ObjectID' },
        defaultValue: []
      })
      t.same(
        paths['yack.s'],
        { path: 'yack.s', instance: 'String', isRequired: false, options: { type: 'string' } },
        'nested fields as dotted paths'
      )
      t.same(paths.fulltext.options, { type: 'string', text: true })
      t.match(
        paths,
        {
          _id: { instance: 'ObjectID', isRequired: true },
          _deleted: { instance: 'Boolean' },
          createdAt: { instance: 'Date' },
          __v: { instance: 'Number' }
        },
        'system fields'
      )
      const vault = json(await get('/model/vault', admin))
      t.same(
        vault.pin,
        { path: 'pin', instance: 'String', isRequired: false, options: { type: 'password' } },
        'no default of a password field'
      )
      t.same(vault.code, {
        path: 'code',
        instance: 'String',
        isRequired: true,
        options: { type: 'string', index: true, unique: true },
        enumValues: ['a', 'b']
      })
      t.equal((await get('/model/vault')).statusCode, 401, 'a model the caller holds no letter on: anonymous')
      t.equal((await get('/model/vault', alice.auth)).statusCode, 403, 'logged in')
      t.equal((await get('/model/nothing')).statusCode, 404)
    })

    await t.test('/groups/{user_id}', async t => {
      const send = (
        method: 'GET' | 'PUT' | 'POST' | 'DELETE',
        url: string,
        authorization?: string,
        payload?: string | object,
        form = false
      ) =>
        app.inject({
          method,
          url,
          headers: {
            ...(authorization && { authorization }),
            ...(form && { 'content-type': 'application/x-www-form-urlencoded' })
          },
          ...(payload !== undefined && { payload })
        })
      const groups = (res: { body: string }) => json(res).groups
      t.same(
        json(await send('PUT', `/groups/${alice.id}`, admin, { group: 'editors' })),
        { status: 'ok', user_id: alice.id, groups: ['editors'] },
        'PUT adds a group'
      )
      t.same(
        groups(await send('PUT', `/groups/${alice.id}`, admin, { group: ['editors', 'sales'] })),
        ['editors', 'sales'],
        'or a list of them, without repeats'
      )
      t.same(
        groups(await send('POST', `/groups/${alice.id}`, admin, 'group[0]=writers&group[1]=ops', true)),
        ['writers', 'ops'],
        "POST replaces them (a form with JXP's indexed keys)"
      )
      t.same(
        groups(await send('DELETE', `/groups/${alice.id}?group=ops`, admin)),
        ['writers'],
        'DELETE ?group= removes one'
      )
      t.same(groups(await send('GET', `/groups/${alice.id}`, alice.auth)), ['writers'], 'a user reads their own groups')
      t.equal(json(await get(`/api/link`, alice.auth)).count, 0, 'and the new groups apply')
      t.equal((await send('GET', `/groups/${alice.id}`)).statusCode, 401, 'nobody else but admins')
      t.equal(
        (await send('PUT', `/groups/${alice.id}`, alice.auth, { group: 'admin' })).statusCode,
        403,
        'only admins change groups'
      )
      t.equal(
        (await send('PUT', `/groups/${alice.id}`, alice.auth, {})).statusCode,
        403,
        'a caller who is not an admin learns nothing from the body (no validation error)'
      )
      t.equal(
        (await send('PUT', `/groups/${alice.id}`, admin, { group: 'admin' })).statusCode,
        400,
        'a role name is not a group'
      )
      t.equal(
        (await send('PUT', `/groups/${alice.id}`, admin, { group: 'two words' })).statusCode,
        400,
        'nor is a name with spaces'
      )
      t.equal((await send('PUT', `/groups/${alice.id}`, admin, {})).statusCode, 400, 'the group is required')
      t.equal((await send('DELETE', `/groups/${alice.id}`, admin)).statusCode, 400, 'so is ?group=')
      t.equal(
        (await send('PUT', '/groups/0123456789abcdef01234567', admin, { group: 'x' })).statusCode,
        404,
        'an unknown user'
      )
    })
  })
}
