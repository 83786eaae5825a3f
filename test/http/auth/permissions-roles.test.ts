// Per-model permissions on every data endpoint: each role (admin, owner, user,
// all, a named group) and letter (c, r, u, d) against /api, /count, /query and /aggregate,
// table-driven over models whose perms differ, on every engine. Callers use
// different credential types (Bearer, API key, Basic, none).
import t, { type Test } from 'tap'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ENGINES, createTestApp } from '../../helpers/test-app.ts'
import { TEST_SETTINGS, bearer, json, login } from '../../helpers/auth-helpers.ts'

type Access = 'any' | 'own' | 401 | 403
interface Rights {
  c: Access
  r: Access
  u: Access
  d: Access
}
type CallerName = 'anonymous' | 'alice' | 'bob' | 'admin'

const ADMIN: Rights = { c: 'any', r: 'any', u: 'any', d: 'any' }
const NOTHING = (status: 401 | 403): Rights => ({ c: status, r: status, u: status, d: status })

/** perms of each model, and what each caller may do (alice: a user; bob: a user in group "editors"). */
const CASES: Array<{
  model: string
  perms?: Record<string, string>
  rights: Record<Exclude<CallerName, 'admin'>, Rights>
}> = [
  { model: 'no_perms', rights: { anonymous: NOTHING(401), alice: NOTHING(403), bob: NOTHING(403) } },
  {
    model: 'public_read',
    perms: { all: 'r' },
    rights: {
      anonymous: { ...NOTHING(401), r: 'any' },
      alice: { ...NOTHING(403), r: 'any' },
      bob: { ...NOTHING(403), r: 'any' }
    }
  },
  {
    model: 'users_cr',
    perms: { user: 'cr' },
    rights: {
      anonymous: NOTHING(401),
      alice: { ...NOTHING(403), c: 'any', r: 'any' },
      bob: { ...NOTHING(403), c: 'any', r: 'any' }
    }
  },
  {
    model: 'owners_crud',
    perms: { owner: 'crud' },
    rights: {
      anonymous: NOTHING(401),
      alice: { c: 'own', r: 'own', u: 'own', d: 'own' },
      bob: { c: 'own', r: 'own', u: 'own', d: 'own' }
    }
  },
  {
    model: 'editors_crud',
    perms: { editors: 'crud', user: 'r' },
    rights: { anonymous: NOTHING(401), alice: { ...NOTHING(403), r: 'any' }, bob: ADMIN }
  },
  {
    model: 'own_read_any_write',
    perms: { owner: 'r', user: 'ud' },
    rights: {
      anonymous: NOTHING(401),
      alice: { c: 403, r: 'own', u: 'any', d: 'any' },
      bob: { c: 403, r: 'own', u: 'any', d: 'any' }
    }
  },
  {
    model: 'drop_box',
    perms: { all: 'c' },
    rights: {
      anonymous: { ...NOTHING(401), c: 'any' },
      alice: { ...NOTHING(403), c: 'any' },
      bob: { ...NOTHING(403), c: 'any' }
    }
  }
]

function writeModels(): string {
  const dir = mkdtempSync(join(tmpdir(), 'quire-perms-'))
  for (const { model, perms } of CASES) {
    writeFileSync(
      join(dir, `${model}.json`),
      JSON.stringify({ name: model, fields: { v: { type: 'string' }, w: { type: 'string' } }, ...(perms && { perms }) })
    )
  }
  return dir
}

interface Reply {
  status: number
  body: Record<string, any>
}

for (const engine of ENGINES) {
  t.test(engine, async t => {
    const { app, admin, createUser } = await createTestApp(t, engine, { ...TEST_SETTINGS, modelsDir: writeModels() })
    const alice = await createUser('alice@example.com', 'alice-password')
    const bob = await createUser('bob@example.com', 'bob-password', { groups: ['editors'] })
    const headers: Record<CallerName, Record<string, string>> = {
      anonymous: {},
      alice: bearer((await login(app, 'alice@example.com', 'alice-password')).token),
      bob: { apikey: (await login(app, 'bob@example.com', 'bob-password')).apikey },
      admin: { authorization: admin }
    }
    const ids: Record<string, string> = { alice: alice.id, bob: bob.id }
    const call = async (
      caller: CallerName,
      method: 'GET' | 'POST' | 'PUT' | 'DELETE',
      url: string,
      payload?: object
    ): Promise<Reply> => {
      const res = await app.inject({ method, url, headers: headers[caller], ...(payload && { payload }) })
      return { status: res.statusCode, body: json(res) }
    }
    const seed = async (model: string, owner: string, v = 'seed'): Promise<string> => {
      const res = await call('admin', 'POST', `/api/${model}`, { v, _owner_id: ids[owner] })
      if (res.status !== 200) throw new Error(JSON.stringify(res.body))
      return res.body.data._id as string
    }

    for (const { model, rights } of CASES) {
      const all: Record<CallerName, Rights> = { ...rights, admin: ADMIN }
      t.test(model, async t => {
        const docs = { alice: await seed(model, 'alice'), bob: await seed(model, 'bob') }
        for (const caller of Object.keys(all) as CallerName[]) {
          t.test(caller, async t => {
            await checkRead(t, call, model, caller, all[caller].r, docs)
            await checkCreate(t, call, model, caller, all[caller], ids[caller])
            await checkWrite(t, call, model, caller, all[caller], docs, 'PUT')
            const fresh = { alice: await seed(model, 'alice', 'fresh'), bob: await seed(model, 'bob', 'fresh') }
            await checkWrite(t, call, model, caller, all[caller], fresh, 'DELETE')
          })
        }
      })
    }

    t.test('only admins set _owner_id; showDeleted needs the right to delete any document', async t => {
      t.equal((await call('alice', 'POST', '/api/owners_crud', { v: 'x', _owner_id: bob.id })).status, 403)
      t.equal((await call('alice', 'GET', '/api/owners_crud?showDeleted=true')).status, 403)
      t.equal((await call('bob', 'GET', '/api/editors_crud?filter[v]=fresh')).body.count, 4)
      t.equal(
        (await call('bob', 'GET', '/api/editors_crud?showDeleted=true&filter[v]=fresh')).body.count,
        8,
        'bob sees the deleted ones too'
      )
      t.equal((await call('admin', 'GET', '/count/owners_crud?showDeleted=true&filter[v]=fresh')).body.count, 8)
      t.equal((await call('admin', 'GET', '/count/owners_crud?filter[v]=fresh')).body.count, 4)
    })
  })
}

type Call = (
  caller: CallerName,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: object
) => Promise<Reply>

/** GET list, GET one, /count, /query and /aggregate agree with the read right. */
async function checkRead(
  t: Test,
  call: Call,
  model: string,
  caller: CallerName,
  access: Access,
  docs: Record<'alice' | 'bob', string>
): Promise<void> {
  const reads = [
    await call(caller, 'GET', `/api/${model}?filter[v]=seed`),
    await call(caller, 'GET', `/count/${model}?filter[v]=seed`),
    await call(caller, 'POST', `/query/${model}`, { query: { v: { $regex: '^se' } } }),
    await call(caller, 'POST', `/aggregate/${model}`, [{ $match: { v: 'seed' } }, { $count: 'count' }])
  ]
  const visible = access === 'any' ? 2 : access === 'own' ? 1 : 0
  for (const [i, res] of reads.entries()) {
    const what = ['list', 'count', 'query', 'aggregate'][i]
    if (typeof access === 'number') {
      t.equal(res.status, access, `${what}: ${access}`)
      t.equal(res.body.code, access === 401 ? 'AUTH_REQUIRED' : 'FORBIDDEN')
    } else {
      t.equal(res.status, 200, what)
      t.equal(res.body.count ?? res.body.data[0]?.count ?? 0, visible, `${what} sees ${visible}`)
    }
  }
  for (const owner of ['alice', 'bob'] as const) {
    const one = await call(caller, 'GET', `/api/${model}/${docs[owner]}`)
    const expected = typeof access === 'number' ? access : access === 'any' || owner === caller ? 200 : 404
    t.equal(one.status, expected, `read ${owner}'s document: ${expected}`)
  }
}

/**
 * A write's reply shows the document only to a caller who may read it; anyone else gets its _id
 * (found by an audit: a PUT answered with the whole document of a model its caller may not read).
 */
function checkReply(t: Test, data: Record<string, unknown>, readable: boolean, field: string, value: string): void {
  if (readable) t.equal(data[field], value, 'the reply shows the document')
  else t.same(data, { _id: data._id }, 'the reply shows only its _id: the caller may not read it')
}

async function checkCreate(
  t: Test,
  call: Call,
  model: string,
  caller: CallerName,
  rights: Rights,
  callerId?: string
): Promise<void> {
  const res = await call(caller, 'POST', `/api/${model}`, { v: 'new' })
  if (typeof rights.c === 'number') {
    t.equal(res.status, rights.c, `create: ${rights.c}`)
    return
  }
  t.equal(res.status, 200, 'create')
  checkReply(t, res.body.data, rights.r === 'any' || rights.r === 'own', 'v', 'new')
  const stored = await call('admin', 'GET', `/api/${model}/${res.body.data._id as string}`)
  if (caller !== 'admin') t.equal(stored.body.data._owner_id, callerId ?? null, 'the creator owns it')
}

/** PUT or DELETE on alice's and bob's documents, as the update or delete right says. */
async function checkWrite(
  t: Test,
  call: Call,
  model: string,
  caller: CallerName,
  rights: Rights,
  docs: Record<'alice' | 'bob', string>,
  method: 'PUT' | 'DELETE'
): Promise<void> {
  const access = method === 'PUT' ? rights.u : rights.d
  for (const owner of ['alice', 'bob'] as const) {
    const res = await call(
      caller,
      method,
      `/api/${model}/${docs[owner]}`,
      method === 'PUT' ? { w: 'changed' } : undefined
    )
    const expected = typeof access === 'number' ? access : access === 'any' || owner === caller ? 200 : 404
    t.equal(res.status, expected, `${method} ${owner}'s document: ${expected}`)
    if (method === 'PUT' && res.status === 200)
      checkReply(t, res.body.data, rights.r === 'any' || (rights.r === 'own' && owner === caller), 'w', 'changed')
  }
}
